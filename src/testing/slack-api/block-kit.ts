/**
 * The Block Kit checks the stand-in makes, from Slack's reference
 * (https://api.slack.com/reference/block-kit/blocks, …/block-elements, …/composition-objects,
 * https://api.slack.com/reference/surfaces/views): block types, counts and text lengths. Slack refuses a
 * message that breaks them (`invalid_blocks`), so Tiller's messages must never break them either.
 *
 * @module
 */

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function text(v: unknown, path: string, max: number, kinds: string[] = ['plain_text', 'mrkdwn']): string | undefined {
  if (!isObject(v)) return `${path} must be a text object`;
  if (typeof v.type !== 'string' || !kinds.includes(v.type)) return `${path}.type must be ${kinds.join(' or ')}`;
  if (typeof v.text !== 'string' || v.text.length === 0) return `${path}.text must be a non-empty string`;
  if (v.text.length > max) return `${path}.text must be at most ${max} characters (it has ${v.text.length})`;
  return undefined;
}

function button(el: Json, path: string): string | undefined {
  const problem = text(el.text, `${path}.text`, 75, ['plain_text']);
  if (problem) return problem;
  if (typeof el.action_id !== 'string' || el.action_id.length > 255) return `${path}.action_id: 1-255 characters`;
  if (el.value !== undefined && (typeof el.value !== 'string' || el.value.length > 2000)) {
    return `${path}.value must be a string of at most 2000 characters`;
  }
  if (el.style !== undefined && el.style !== 'primary' && el.style !== 'danger') {
    return `${path}.style must be primary or danger`;
  }
  return undefined;
}

function block(b: unknown, path: string, surface: 'message' | 'modal'): string | undefined {
  if (!isObject(b) || typeof b.type !== 'string') return `${path} must be an object with a type`;
  if (b.block_id !== undefined && (typeof b.block_id !== 'string' || b.block_id.length > 255)) {
    return `${path}.block_id: at most 255 characters`;
  }
  switch (b.type) {
    case 'divider':
      return undefined;
    case 'header':
      return text(b.text, `${path}.text`, 150, ['plain_text']);
    case 'section': {
      if (b.text === undefined && b.fields === undefined) return `${path} needs text or fields`;
      if (b.text !== undefined) {
        const problem = text(b.text, `${path}.text`, 3000);
        if (problem) return problem;
      }
      if (b.fields !== undefined) {
        if (!Array.isArray(b.fields) || b.fields.length > 10) return `${path}.fields: at most 10`;
        for (const [i, f] of b.fields.entries()) {
          const problem = text(f, `${path}.fields[${i}]`, 2000);
          if (problem) return problem;
        }
      }
      return undefined;
    }
    case 'context': {
      if (!Array.isArray(b.elements) || b.elements.length === 0 || b.elements.length > 10) {
        return `${path}.elements: 1-10 elements`;
      }
      for (const [i, el] of b.elements.entries()) {
        const problem = text(el, `${path}.elements[${i}]`, 3000);
        if (problem) return problem;
      }
      return undefined;
    }
    case 'actions': {
      if (!Array.isArray(b.elements) || b.elements.length === 0 || b.elements.length > 25) {
        return `${path}.elements: 1-25 elements`;
      }
      for (const [i, el] of b.elements.entries()) {
        if (!isObject(el) || el.type !== 'button') return `${path}.elements[${i}]: only buttons are checked here`;
        const problem = button(el, `${path}.elements[${i}]`);
        if (problem) return problem;
      }
      return undefined;
    }
    case 'input': {
      if (surface !== 'modal') return `${path}: input blocks belong in modals`;
      const problem = text(b.label, `${path}.label`, 2000, ['plain_text']);
      if (problem) return problem;
      const el = b.element;
      if (!isObject(el) || el.type !== 'plain_text_input') return `${path}.element must be a plain_text_input`;
      if (typeof el.action_id !== 'string' || el.action_id.length > 255) return `${path}.element.action_id: 1-255`;
      if (el.max_length !== undefined && (typeof el.max_length !== 'number' || el.max_length > 3000)) {
        return `${path}.element.max_length: at most 3000`;
      }
      return undefined;
    }
    default:
      return `${path}.type ${b.type} is not a block this stand-in knows`;
  }
}

/** The first problem with `blocks` on a surface, or undefined when Slack would accept them. */
export function checkBlocks(blocks: unknown, surface: 'message' | 'modal'): string | undefined {
  if (!Array.isArray(blocks)) return 'blocks must be an array';
  const max = surface === 'message' ? 50 : 100;
  if (blocks.length > max) return `at most ${max} blocks (there are ${blocks.length})`;
  const ids = new Set<string>();
  for (const [i, b] of blocks.entries()) {
    const problem = block(b, `blocks[${i}]`, surface);
    if (problem) return problem;
    const id = (b as Json).block_id;
    if (typeof id === 'string') {
      if (ids.has(id)) return `blocks[${i}].block_id ${id} is used twice`;
      ids.add(id);
    }
  }
  return undefined;
}

/** The first problem with a modal view, or undefined. */
export function checkModal(view: unknown): string | undefined {
  if (!isObject(view) || view.type !== 'modal') return 'view.type must be modal';
  for (const key of ['title', 'submit', 'close'] as const) {
    if (view[key] === undefined && key !== 'title') continue;
    const problem = text(view[key], `view.${key}`, 24, ['plain_text']);
    if (problem) return problem;
  }
  if (
    view.private_metadata !== undefined &&
    (typeof view.private_metadata !== 'string' || view.private_metadata.length > 3000)
  ) {
    return 'view.private_metadata: at most 3000 characters';
  }
  if (view.callback_id !== undefined && (typeof view.callback_id !== 'string' || view.callback_id.length > 255)) {
    return 'view.callback_id: at most 255 characters';
  }
  const hasInput = Array.isArray(view.blocks) && view.blocks.some((b) => isObject(b) && b.type === 'input');
  if (hasInput && view.submit === undefined) return 'a view with input blocks needs submit';
  return checkBlocks(view.blocks, 'modal');
}
