/**
 * Hostile JSON, built as text: deep nesting, wide objects, long strings. Built without
 * `JSON.stringify` so the test process never recurses over what it sends (a 30 000-deep array
 * overflows `JSON.stringify`'s stack).
 */

/** `[[[ … ]]]` (or `{"a":{"a": … }}`) nested `depth` levels around `core`. */
export function deepJson(depth: number, shape: 'array' | 'object' = 'array', core = '0'): string {
  if (shape === 'array') return '['.repeat(depth) + core + ']'.repeat(depth);
  return '{"a":'.repeat(depth) + core + '}'.repeat(depth);
}

/** A JSON string literal (escapes done by JSON.stringify: flat, no recursion). */
export const jsonString = (s: string): string => JSON.stringify(s);

/** `{"path": <path>, <key>: <value>}` with `value` given as JSON text. */
export function pathArgs(path: string, extra?: { key: string; valueJson: string }): string {
  const head = `{"path":${jsonString(path)}`;
  return extra ? `${head},${jsonString(extra.key)}:${extra.valueJson}}` : `${head}}`;
}

/** An object with `keys` members `"k<n>": 0`. */
export function wideObject(keys: number): string {
  const parts: string[] = [];
  for (let i = 0; i < keys; i++) parts.push(`"k${i}":0`);
  return `{${parts.join(',')}}`;
}

/** `unit` repeated until the result is at least `length` characters (UTF-16 units), then cut. */
export function longText(unit: string, length: number): string {
  if (length <= 0) return '';
  const text = unit.repeat(Math.ceil(length / Math.max(1, unit.length)));
  // Never leave half a surrogate pair at the cut unless the unit itself is one.
  let end = length;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff && unit.length > 1) end--;
  return text.slice(0, end);
}
