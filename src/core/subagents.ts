/**
 * Sub-agents, the pure part: the tool a parent's model sees, the child turn's workflow id, how an
 * inheriting child's policy is merged with its parents', and what the parent's model reads back.
 * Deterministic and free of Temporal imports (used by the workflow and by the `startTurn` activity).
 */
import { boundEvent, BOUNDS, clip, jsonBytes } from './bounds';
import { formatZodError, SubAgentArgs, type CheckedProgress, type PendingApproval, type TurnProgress } from './schemas';
import type { AgentSpec, GateSpec, ToolSpec } from './spec';

/** JSON Schema of a sub-agent tool's arguments (`SubAgentArgs` in schemas/turn.ts). */
export const SUBAGENT_PARAMETERS: Record<string, unknown> = {
  type: 'object',
  properties: { input: { type: 'string', description: 'The task for the sub-agent, in full: it sees nothing else.' } },
  required: ['input'],
  additionalProperties: false,
};

export function subAgentToolSpec(
  tool: string,
  sub: { agent: string; description: string; inherit?: boolean },
): ToolSpec {
  return {
    name: tool,
    description: sub.description,
    parameters: SUBAGENT_PARAMETERS,
    subAgent: { agent: sub.agent, inherit: sub.inherit === true },
  };
}

/**
 * The child turn's workflow id: derived from the parent turn and the tool call, so a retried or
 * replayed parent addresses the same child, and a client can find it from the parent's state.
 * Characters that do not travel well in URLs and shells are replaced.
 */
export function subAgentTurnId(parentTurnId: string, toolCallId: string): string {
  return `${parentTurnId}.sub.${toolCallId.replace(/[^A-Za-z0-9_.-]/g, '_')}`;
}

/**
 * An inheriting sub-agent's spec: its own gates first, then each ancestor's gate for a tool it also
 * has (nearest ancestor wins), and an ancestor's hooks count as its own.
 */
export function inheritPolicy(own: AgentSpec, ancestors: readonly AgentSpec[]): AgentSpec {
  if (ancestors.length === 0) return own;
  const names = new Set(own.tools.map((t) => t.name));
  const gates: Record<string, GateSpec> = {};
  for (const spec of [...ancestors].reverse()) {
    for (const [tool, gate] of Object.entries(spec.gates)) if (names.has(tool)) gates[tool] = gate;
  }
  Object.assign(gates, own.gates);
  const hooks = { ...own.hooks };
  for (const spec of ancestors) {
    for (const key of Object.keys(hooks) as (keyof AgentSpec['hooks'])[])
      hooks[key] = Boolean(hooks[key] || spec.hooks[key]);
    // Present only when some agent has one (specs recorded before answer gates lack the key).
    if (spec.hooks.approveAnswer) hooks.approveAnswer = true;
  }
  return { ...own, gates, hooks, inherits: ancestors.map((a) => a.name) };
}

/** What the parent's model reads when its sub-agent ended without an answer. */
export function subAgentErrorResult(tool: string, status: 'failed' | 'cancelled', error?: string): string {
  return status === 'cancelled'
    ? `Error: sub-agent ${tool} was cancelled before it answered.`
    : `Error: sub-agent ${tool} failed: ${error ?? 'no reason given'}`;
}

/** A sub-agent call's arguments follow Tiller's own schema (`SubAgentArgs`), not a worker tool's. */
export function subAgentInput(
  tool: string,
  args: unknown,
): { type: 'valid'; value: string } | { type: 'invalid'; error: string } {
  const checked = SubAgentArgs.safeParse(args);
  return checked.success
    ? { type: 'valid', value: checked.data.input }
    : { type: 'invalid', error: `invalid arguments for ${tool}: ${formatZodError(checked.error)}` };
}

/** What a parent keeps of one child's report, in UTF-8 bytes of JSON (its pending approvals' details go first). */
export const PROGRESS_BYTES = 64_000;

const text = (v: unknown, max: number) => (typeof v === 'string' ? clip(v, max) : undefined);
const names = (v: unknown) =>
  Array.isArray(v) ? v.slice(0, 50).flatMap((n) => (typeof n === 'string' ? [clip(n, BOUNDS.name)] : [])) : undefined;

/**
 * A `turnProgress` report as a parent (a turn or a session) records it: any Temporal client can send one
 * that fits `TurnProgressCheck`, so only the known fields of each pending approval are kept, bounded, and
 * past `PROGRESS_BYTES` their arguments and previews, then all but their ids and tools, are dropped.
 */
export function boundProgress(progress: CheckedProgress): TurnProgress {
  const picked = progress.pendingApprovals.map((p): PendingApproval => {
    const entry: Record<string, unknown> = {
      id: clip(p.id, BOUNDS.name),
      tool: clip(p.tool, BOUNDS.name),
      args: p.args,
      argsDigest: text(p.argsDigest, BOUNDS.name) ?? '',
      requestedAt: text(p.requestedAt, 64) ?? '',
      expiresAt: text(p.expiresAt, 64),
      approvers: names(p.approvers),
      escalatesTo: names(p.escalatesTo),
      escalated: typeof p.escalated === 'boolean' ? p.escalated : undefined,
      reminders: typeof p.reminders === 'number' ? p.reminders : undefined,
      preview: text(p.preview, BOUNDS.text),
    };
    for (const key of Object.keys(entry)) if (entry[key] === undefined) delete entry[key];
    return boundEvent(entry) as unknown as PendingApproval;
  });
  let pendingApprovals = picked;
  if (jsonBytes(pendingApprovals) > PROGRESS_BYTES)
    pendingApprovals = picked.map(({ preview: _preview, ...p }) => ({ ...p, args: '[…]' }));
  if (jsonBytes(pendingApprovals) > PROGRESS_BYTES)
    pendingApprovals = picked.map((p) => ({ id: p.id, tool: p.tool, args: '[…]', argsDigest: '', requestedAt: '' }));
  return {
    turnId: clip(progress.turnId, BOUNDS.name),
    status: progress.status,
    pendingApprovals,
    ...(progress.usage && { usage: progress.usage }),
  };
}
