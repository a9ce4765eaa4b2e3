/** A tool call's arguments as state and events show them, and which calls their model call checks. Pure. */
import { parseToolArgs } from '../../core/args';
import { BOUNDS } from '../../core/bounds';
import type { AgentSpec, ArgCheck } from '../../core/spec';

/** Arguments as recorded in state: parsed JSON when they parse, else the raw string the model sent. */
export function argsForDisplay(raw: string): unknown {
  const parsed = parseToolArgs(raw);
  return parsed.type === 'valid' ? parsed.value : raw;
}

/** Arguments for state and events; oversized ones are summarised so they never bloat history twice. */
export function displayArgs(raw: string, spec: AgentSpec): unknown {
  if (spec.limits && raw.length > spec.limits.maxToolArgChars) return `[${raw.length} characters of arguments]`;
  return argsForDisplay(raw);
}

/**
 * The agent's worker tools a human may be asked about that have no preview: their calls' arguments are
 * checked by the model call that asks for them (`ModelRequest.checkArgs`), not by a `previewTool`.
 */
export function argsToCheck(spec: AgentSpec): string[] {
  return spec.tools
    .filter((t) => !t.subAgent && !t.handoff && !t.mcp && !t.preview)
    .filter((t) => spec.gates[t.name] !== undefined || spec.hooks.approveTool)
    .map((t) => t.name);
}

/**
 * One call's check from its model call (`ModelResponse.argChecks`), when it is one: a worker of another
 * version (or a custom one) may send none, or something else, which then leaves the call to the preview.
 */
export function argCheckOf(value: unknown): ArgCheck | undefined {
  const c = value as { ok?: unknown; error?: unknown } | null | undefined;
  if (c?.ok === true) return { ok: true };
  if (c?.ok === false && typeof c.error === 'string') return { ok: false, error: c.error.slice(0, BOUNDS.text) };
  return undefined;
}
