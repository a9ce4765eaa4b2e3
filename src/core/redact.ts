/**
 * What a caller without the `args` right sees of a turn: its structure — which tools, who decided,
 * when, how long, which status, how many tokens — and none of its content. An allow-list, so the
 * rule is about content, not field names: every field not named here (tool arguments, results,
 * previews, the model's text, outputs, errors, reasons, a turn's input — which is tool arguments
 * when the turn is a sub-agent's — and any field added later) reads `[redacted]`.
 *
 * Used for the `state` route, the SSE events and the inbox; the SSE stream also leaves out the live
 * model text (`delta` / `discard`) for such callers.
 */
export const REDACTED = '[redacted]';

/** Fields shown as they are: identifiers, names, times, statuses, counts, rules and decisions' facts. */
const STRUCTURE = new Set([
  // the turn
  'version',
  'status',
  'agent',
  'turnId',
  'sessionId',
  'startedBy',
  'eventCount',
  'usage',
  'trust',
  // events
  'seq',
  'at',
  'type',
  'call',
  'durationMs',
  'finishReason',
  'usageEstimated',
  'api',
  // handoffs, guardrails, the context window (names, verdicts and counts; never their text or info)
  'from',
  'to',
  'handedOffFrom',
  'kind',
  'tripped',
  'strategy',
  'dropped',
  'tokensBefore',
  'tokensAfter',
  'model',
  'tools',
  'toolCallId',
  'tool',
  'reminder',
  'hook',
  'hookName',
  'childTurnId',
  'inherit',
  // tool calls, pending approvals and decisions
  'id',
  'name',
  'argsDigest',
  'requestedAt',
  'expiresAt',
  'approvers',
  'escalatesTo',
  'escalated',
  'reminders',
  'startedAt',
  'endedAt',
  'approved',
  'scope',
  'approver',
  'via',
  // the inbox
  'youMayDecide',
]);

/** Fields whose value is more of the same shapes: redacted field by field. */
const NESTED = new Set(['events', 'toolCalls', 'pendingApprovals', 'decision']);

/** The structure of a turn's state, an event, a pending call or an inbox (or a list of them), without content. */
export function redact<T>(value: T): T {
  return view(value) as T;
}

function view(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(view);
  if (value === null || typeof value !== 'object') return REDACTED;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (v === undefined) continue;
    if (STRUCTURE.has(key)) out[key] = v;
    else if (NESTED.has(key)) out[key] = view(v);
    else if (key === 'children') out[key] = children(v);
    else out[key] = REDACTED;
  }
  return out;
}

/** A turn's sub-agents, keyed by child turn id (a structural key), each redacted like a turn. */
function children(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return REDACTED;
  return Object.fromEntries(Object.entries(value).map(([turnId, child]) => [turnId, view(child)]));
}
