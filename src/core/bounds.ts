/**
 * Bounds on everything a turn keeps: untrusted input (model output, decisions from any Temporal client,
 * signals, MCP servers) is clipped before it is recorded, JSON is walked without recursion and refused
 * past a documented depth, and the `state` query's answer stays under a byte budget whatever happened.
 * Pure and iterative (no call stack proportional to the input): safe in workflow code.
 */

export const BOUNDS = {
  /** Names and ids: tools, tool call ids, approvers, agents, hooks, turn ids. */
  name: 200,
  /** Short texts: reasons, errors, previews, descriptions of rejected input. */
  text: 4_000,
  /** Long texts: model text, tool results and the answer as events and state show them. */
  long: 100_000,
  /** Strings inside JSON values shown in state (arguments, edited arguments). */
  jsonString: 2_000,
  /** Entries per array or object, and values in all, of a JSON value shown in state. */
  jsonEntries: 100,
  jsonNodes: 2_000,
  /** Nesting of JSON the turn accepts at all (tool arguments, edited arguments): deeper is refused. */
  jsonDepth: 64,
  /**
   * Tool calls run from one model response; the rest fail at once (the model reads why). 32: each
   * call's activity adds two events when it completes, and a workflow task that is in flight when more
   * than 100 such events arrive is failed by the server (`FORCE_CLOSE_COMMAND`) and done again, so a
   * response's calls must not be able to finish more than 50 activities at once. Turns whose
   * responses ran 33 to 64 calls before keep that (patch `fewer-calls-per-response`).
   */
  callsPerResponse: 32,
  /** What turns before that patch ran of a response's calls. */
  callsPerResponseBefore: 64,
  /** Tool calls the model activity reads from one response (more makes the answer malformed). */
  callsReadPerResponse: 256,
  /** A model response, as JSON (it is recorded in history as the activity's result). */
  modelResponseBytes: 1_000_000,
  /** A receipt an `onApprovalPending` hook returns, as JSON (it is recorded in history and carried). */
  receiptChars: 2_000,
  /** Receipts kept per waiting call for `onApprovalResolved`: the newest this many. */
  receiptsPerCall: 20,
  /** The `state` query's answer and a turn's result, in UTF-8 bytes (Temporal's payload limit is 2 MB). */
  stateBytes: 1_000_000,
  /** Events in one page of the `events` query (src/core/reads.ts); a page also stays under `stateBytes`. */
  eventsPage: 500,
  /** A failure's message and stack trace as the worker sends them (src/codec/failure-strings.ts). */
  failureMessage: 8_000,
  failureStack: 16_000,
} as const;

/** A hook's receipt (`ApprovalReceipt` in ./spec, which this module does not import: spec → schemas → bounds). */
export interface Receipt {
  hook?: string;
  value: unknown;
}

/**
 * Adds what a notification returned to the call's receipts: untrusted in size (a hook made them), so a
 * receipt that is not `{hook?, value}` with a JSON value of at most `BOUNDS.receiptChars` characters
 * (nested at most `BOUNDS.jsonDepth` levels) is dropped, and only the newest `BOUNDS.receiptsPerCall` are kept.
 */
export function keepReceipts(kept: readonly Receipt[] | undefined, added: unknown): Receipt[] {
  const fresh = (Array.isArray(added) ? added.slice(-BOUNDS.receiptsPerCall) : []).filter(isReceipt);
  return [...(kept ?? []), ...fresh].slice(-BOUNDS.receiptsPerCall);
}

function isReceipt(r: unknown): r is Receipt {
  if (!r || typeof r !== 'object' || !('value' in r)) return false;
  const { hook, value } = r as { hook?: unknown; value: unknown };
  if (hook !== undefined && (typeof hook !== 'string' || hook.length > BOUNDS.name)) return false;
  // Depth first (walked iteratively), so that measuring cannot overflow the stack.
  if (deeperThan(value, BOUNDS.jsonDepth)) return false;
  const json = JSON.stringify(value);
  return json !== undefined && json.length <= BOUNDS.receiptChars;
}

/**
 * `text` with every lone UTF-16 surrogate replaced by U+FFFD: a string that encodes as UTF-8. A lone
 * surrogate (from a hostile id, or a clip between the halves of a pair) in a failure the worker sends
 * back makes the core refuse the whole workflow completion, and the worker with it.
 */
export function wellFormed(text: string): string {
  return text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

/** `text` cut to `max` characters with a marker that says how long it was. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const marker = `…[clipped by Tiller: ${text.length} characters]`;
  return text.slice(0, Math.max(0, max - marker.length)) + marker;
}

/** True when `value` nests arrays/objects deeper than `limit` (walked iteratively). */
export function deeperThan(value: unknown, limit: number): boolean {
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (stack.length) {
    const { value: v, depth } = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth + 1 > limit) return true;
    for (const child of Object.values(v)) stack.push({ value: child, depth: depth + 1 });
  }
  return false;
}

const TRUNCATED = '[…]';

/**
 * A bounded copy of a JSON value for display: strings clipped, at most `jsonEntries` entries per
 * level and `jsonNodes` values in all, nesting cut at `jsonDepth` (marked). Built iteratively.
 */
export function boundJson(value: unknown, maxString: number = BOUNDS.jsonString): unknown {
  let nodes = 0;
  const copy = (v: unknown): unknown => (typeof v === 'string' ? clip(v, maxString) : v);
  if (value === null || typeof value !== 'object') return copy(value);
  const root: unknown = Array.isArray(value) ? [] : {};
  const stack: { from: object; to: Record<string, unknown> | unknown[]; depth: number }[] = [
    { from: value, to: root as Record<string, unknown>, depth: 1 },
  ];
  while (stack.length) {
    const { from, to, depth } = stack.pop()!;
    const entries = Object.entries(from);
    entries.slice(0, BOUNDS.jsonEntries).forEach(([key, child]) => {
      nodes++;
      let out: unknown;
      if (nodes > BOUNDS.jsonNodes) out = TRUNCATED;
      else if (child === null || typeof child !== 'object') out = copy(child);
      else if (depth >= BOUNDS.jsonDepth) out = TRUNCATED;
      else {
        out = Array.isArray(child) ? [] : {};
        stack.push({ from: child, to: out as Record<string, unknown>, depth: depth + 1 });
      }
      if (Array.isArray(to)) to.push(out);
      else setOwn(to, clip(key, BOUNDS.name), out);
    });
    if (entries.length > BOUNDS.jsonEntries) {
      const more = `[${entries.length - BOUNDS.jsonEntries} more]`;
      if (Array.isArray(to)) to.push(more);
      else to['…'] = more;
    }
  }
  return root;
}

/**
 * Sets an own, enumerable property — also for a key such as `__proto__`, which plain assignment
 * would turn into a prototype change (the key, and what it holds, gone from the copy).
 */
function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

/** UTF-8 length of `text` without encoding it. */
export function utf8Length(text: string): number {
  // eslint-disable-next-line no-control-regex
  if (!/[^\u0000-\u007f]/.test(text)) return text.length;
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c < 0xdc00 && i + 1 < text.length) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/** UTF-8 size of a value as JSON. */
export function jsonBytes(value: unknown): number {
  return utf8Length(JSON.stringify(value) ?? '');
}

/** Event fields that hold names or ids, and those that may hold long text (others: short text). */
const NAME_KEYS = new Set([
  'toolCallId',
  'tool',
  'agent',
  'approver',
  'approvers',
  'escalatesTo',
  'id',
  'name',
  'childTurnId',
  'turnId',
  'hookName',
  'hook',
  'model',
  'argsDigest',
  'tools',
  'finishReason',
  'from',
  'to',
]);
const LONG_KEYS = new Set(['text', 'result', 'output', 'input', 'content', 'reasoning', 'summary']);
/** Fields that hold arbitrary JSON from outside (the model's arguments, an approver's edit). */
const JSON_KEYS = new Set(['args', 'modelSettings', 'info']);
/** Fields kept as they are: a structured answer, bounded by the model activity (`BOUNDS.long` characters of JSON). */
const VERBATIM_KEYS = new Set(['parsed']);

/**
 * A copy of an event body with every string clipped by what its field holds and every JSON value
 * bounded (`boundJson`). Walked iteratively; the shape of the event is kept.
 */
export function boundEvent<T extends object>(body: T): T {
  const root = { ...body } as Record<string, unknown>;
  const stack: { obj: Record<string, unknown> | unknown[]; key: string }[] = [{ obj: root, key: '' }];
  while (stack.length) {
    const { obj, key: parentKey } = stack.pop()!;
    const keys = Array.isArray(obj) ? obj.map((_, i) => i) : Object.keys(obj);
    for (const k of keys) {
      const key = typeof k === 'number' ? parentKey : k;
      const value = (obj as Record<string | number, unknown>)[k];
      let out = value;
      if (VERBATIM_KEYS.has(key) && typeof k === 'string') out = value;
      else if (JSON_KEYS.has(key)) out = boundJson(value);
      else if (typeof value === 'string') {
        out = clip(value, NAME_KEYS.has(key) ? BOUNDS.name : LONG_KEYS.has(key) ? BOUNDS.long : BOUNDS.text);
      } else if (value !== null && typeof value === 'object') {
        out = Array.isArray(value) ? [...value] : { ...value };
        stack.push({ obj: out as Record<string, unknown>, key });
      }
      if (typeof k === 'number') (obj as unknown[])[k] = out;
      else setOwn(obj as Record<string, unknown>, k, out);
    }
  }
  return root as T;
}
