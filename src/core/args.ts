/** Parsing the model's tool arguments: one rule for the workflow and the activities (empty = `{}`). */
export function parseToolArgs(raw: string): { type: 'valid'; value: unknown } | { type: 'invalid'; error: string } {
  try {
    return { type: 'valid', value: raw.trim() === '' ? {} : JSON.parse(raw) };
  } catch (err) {
    return { type: 'invalid', error: err instanceof Error ? err.message : String(err) };
  }
}
