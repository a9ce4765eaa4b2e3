import { BOUNDS, clip, deeperThan } from './bounds';

/** Parsing the model's tool arguments: one rule for the workflow and the activities (empty = `{}`). */
export function parseToolArgs(raw: string): { type: 'valid'; value: unknown } | { type: 'invalid'; error: string } {
  let value: unknown;
  try {
    value = raw.trim() === '' ? {} : JSON.parse(raw);
  } catch (err) {
    return { type: 'invalid', error: clip(err instanceof Error ? err.message : String(err), BOUNDS.text) };
  }
  // Nothing downstream (digests, display, validation, history) ever walks deeper than this.
  if (deeperThan(value, BOUNDS.jsonDepth)) {
    return { type: 'invalid', error: `nested deeper than ${BOUNDS.jsonDepth} levels` };
  }
  return { type: 'valid', value };
}
