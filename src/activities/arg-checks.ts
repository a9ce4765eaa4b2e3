/**
 * A gated call's arguments checked where the model call that asked for it runs (issue 36): the same
 * check `previewTool` makes — JSON, then the tool's zod schema, with the same messages — so a turn asks
 * a human about a call of a tool without a preview with no activity between the model's answer and
 * the wait. Only worker tools: an MCP tool's check may need its server, and keeps the preview activity.
 */
import { BOUNDS, clip } from '../core/bounds';
import { parseToolArgs } from '../core/args';
import { formatZodError } from '../core/schemas';
import type { ArgCheck, ModelRequest, ModelResponse } from '../core/spec';
import type { ToolDefinition } from '../tools/define';

/** What a call whose arguments are not JSON is told (the model reads it), wherever they are checked. */
export const notJson = (tool: string, error: string) => `the arguments for ${tool} are not valid JSON (${error})`;

/** What a call whose arguments do not match the tool's schema is told, wherever they are checked. */
export const invalidArgs = (tool: string, error: string) => `invalid arguments for ${tool}: ${error}`;

/** A worker tool's arguments checked; undefined when this worker does not define the tool or cannot tell. */
export function checkWorkerArgs(def: ToolDefinition | undefined, tool: string, rawArgs: string): ArgCheck | undefined {
  if (!def) return undefined;
  const raw = parseToolArgs(rawArgs);
  if (raw.type === 'invalid') return { ok: false, error: notJson(tool, raw.error) };
  try {
    const parsed = def.input.safeParse(raw.value);
    if (parsed.success) return { ok: true };
    return { ok: false, error: clip(invalidArgs(tool, formatZodError(parsed.error)), BOUNDS.text) };
  } catch {
    // A schema that cannot be checked here (an async refinement): the turn's preview activity checks it.
    return undefined;
  }
}

/**
 * `ModelResponse.argChecks` for a response: the calls of the tools the request names, among the first
 * `BOUNDS.callsPerResponse` (the rest are refused unrun); undefined when none was checked.
 */
export function argChecksOf(
  req: Pick<ModelRequest, 'checkArgs'>,
  message: ModelResponse['message'],
  tools: ReadonlyMap<string, ToolDefinition>,
): ModelResponse['argChecks'] {
  const names = new Set(req.checkArgs ?? []);
  if (names.size === 0 || !message.tool_calls?.length) return undefined;
  const checks = message.tool_calls.map((t, i) =>
    i < BOUNDS.callsPerResponse && names.has(t.function.name)
      ? (checkWorkerArgs(tools.get(t.function.name), t.function.name, t.function.arguments) ?? null)
      : null,
  );
  return checks.some((c) => c !== null) ? checks : undefined;
}
