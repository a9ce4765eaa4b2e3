/** A tool call's arguments as state and events show them, and which calls their model call checks. Pure. */
import { parseToolArgs } from '../../core/args';
import type { AgentSpec } from '../../core/spec';

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
