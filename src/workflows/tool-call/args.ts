/** A tool call's arguments as state and events show them. Pure. */
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
