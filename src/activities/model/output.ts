/** A structured answer checked against the agent's output schema, bounded before it is recorded. */
import type { ZodType } from 'zod';
import { BOUNDS, clip, deeperThan } from '../../core/bounds';
import { formatZodError } from '../../core/schemas';
import type { OutputCheck } from '../../core/spec';

/**
 * An answer checked against the agent's output schema: JSON nested at most `BOUNDS.jsonDepth` levels, valid,
 * and as parsed plain JSON of at most `BOUNDS.long` characters (it is recorded verbatim); else why not,
 * bounded, for the model to read.
 */
export function checkOutput(content: string | null, schema: ZodType): OutputCheck {
  let json: unknown;
  try {
    json = JSON.parse(content ?? '');
  } catch (err) {
    return { ok: false, error: `the answer is not JSON (${clip((err as Error).message, 200)})` };
  }
  // Before the schema and JSON.stringify walk it (recursively): a deep answer would be recorded verbatim,
  // or overflow the stack and be called "not JSON".
  if (deeperThan(json, BOUNDS.jsonDepth))
    return { ok: false, error: `the answer is nested deeper than ${BOUNDS.jsonDepth} levels` };
  const parsed = schema.safeParse(json);
  if (!parsed.success) return { ok: false, error: formatZodError(parsed.error) };
  let text: string | undefined;
  try {
    text = JSON.stringify(parsed.data);
  } catch (err) {
    return { ok: false, error: `the parsed answer is not JSON: ${clip((err as Error).message, 200)}` };
  }
  if (text === undefined) return { ok: true, value: null };
  if (text.length > BOUNDS.long)
    return { ok: false, error: `the answer is ${text.length} characters of JSON, more than ${BOUNDS.long}` };
  return { ok: true, value: JSON.parse(text) };
}
