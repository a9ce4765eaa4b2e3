/**
 * The turn state reducer: `emit` appends an event to the bounded ring and folds it into the state.
 * Pure and deterministic (runs inside the workflow sandbox); mutates the state object in place
 * because a turn's state is owned by exactly one workflow and copying it per event would be O(n²).
 */
import { boundJson, BOUNDS, clip, jsonBytes } from './bounds';
import type { TurnEvent, TurnEventBody } from './events';
import type { ModelSettings } from './model-settings';
import {
  emptyUsage,
  WIRE_VERSION,
  type PendingApproval,
  type SubAgentRun,
  type ToolCallRecord,
  type TrustGrant,
  type TurnStatus,
  type Usage,
} from './schemas';

/** A turn as the `state` query answers it: everything its events have said, folded. */
export interface TurnState {
  version: number;
  status: TurnStatus;
  agent: string;
  turnId: string;
  sessionId?: string;
  /** Who started the turn, when the client said (TurnInput.startedBy). */
  startedBy?: string;
  pendingApprovals: PendingApproval[];
  toolCalls: ToolCallRecord[];
  trust: TrustGrant[];
  usage: Usage;
  events: TurnEvent[];
  /** Total events ever emitted; `events` keeps only the newest ones. */
  eventCount: number;
  /** Sub-agents started by this turn, by child turn id; absent until the first one starts. */
  children?: Record<string, SubAgentRun>;
  output?: string;
  error?: string;
  /** A structured answer, parsed by the agent's output schema (`TURN_COMPLETED`). */
  parsed?: unknown;
  /** The model settings the turn runs with (from `AGENT_STARTED`), when the agent has any. */
  modelSettings?: ModelSettings;
  /** The guardrails that ran (`GUARDRAIL_RAN`), in order; absent until one runs. */
  guardrails?: GuardrailRun[];
  /** The agents that had the turn before `agent`, oldest first (`HANDOFF`); absent without a handoff. */
  handedOffFrom?: string[];
  /** What the context window cost the conversation (`CONTEXT_TRIMMED`), summed; absent until trimmed. */
  context?: { dropped: number; summary?: string };
}

/** One guardrail run as `state` shows it. */
export interface GuardrailRun {
  name: string;
  kind: 'input' | 'output';
  tripped: boolean;
  at: string;
  durationMs?: number;
  info?: unknown;
  error?: string;
  /** A guardrail agent: the agent that checked (its tokens are in the turn's usage). */
  agent?: string;
}

export const DEFAULT_MAX_EVENTS = 500;

/** A turn's state before its first event: running, nothing called, no usage. */
export function createTurnState(init: {
  turnId: string;
  agent: string;
  sessionId?: string;
  startedBy?: string;
  trust?: TrustGrant[];
}): TurnState {
  return {
    version: WIRE_VERSION,
    status: 'running',
    agent: init.agent,
    turnId: init.turnId,
    ...(init.sessionId !== undefined && { sessionId: init.sessionId }),
    ...(init.startedBy !== undefined && { startedBy: init.startedBy }),
    pendingApprovals: [],
    toolCalls: [],
    trust: [...(init.trust ?? [])],
    usage: emptyUsage(),
    events: [],
    eventCount: 0,
  };
}

/** Appends `body` as the next event (seq, at) and folds it into `state`. Returns the event. */
export function emit(state: TurnState, body: TurnEventBody, at: string, maxEvents = DEFAULT_MAX_EVENTS): TurnEvent {
  const event = { ...body, seq: state.eventCount + 1, at } as TurnEvent;
  state.eventCount = event.seq;
  state.events.push(event);
  if (state.events.length > maxEvents) state.events.splice(0, state.events.length - maxEvents);
  foldEvent(state, event);
  return event;
}

/**
 * The sub-agent run with this turn id: an own entry only — an id from a signal such as `__proto__` or
 * `constructor` must not find `Object.prototype` (and write onto it) through the record.
 */
export function childRun(state: TurnState, childTurnId: string): SubAgentRun | undefined {
  const children = state.children;
  return children && Object.prototype.hasOwnProperty.call(children, childTurnId) ? children[childTurnId] : undefined;
}

function toolCall(state: TurnState, id: string, name: string, args: unknown): ToolCallRecord {
  let record = state.toolCalls.find((c) => c.id === id);
  if (!record) {
    record = { id, name, args, status: 'running' };
    state.toolCalls.push(record);
  }
  return record;
}

function dropPending(state: TurnState, id: string): void {
  state.pendingApprovals = state.pendingApprovals.filter((p) => p.id !== id);
}

function addUsage(total: Usage, more: Usage): void {
  total.inputTokens += more.inputTokens;
  total.outputTokens += more.outputTokens;
  total.totalTokens += more.totalTokens;
  total.modelCalls += more.modelCalls;
  if (more.estimatedCalls) total.estimatedCalls = (total.estimatedCalls ?? 0) + more.estimatedCalls;
}

/** A turn that ends early leaves no call looking as if it were still in progress. */
function abandonOpenCalls(state: TurnState, at: string, error: string): void {
  for (const call of state.toolCalls) {
    if (call.status === 'running' || call.status === 'awaiting_approval') {
      call.status = 'failed';
      call.error = error;
      call.endedAt = at;
    }
  }
  state.pendingApprovals = [];
}

/** Folds one event into the state. Exported for observers and tests; `emit` is the usual entry. */
export function foldEvent(state: TurnState, event: TurnEvent): void {
  switch (event.type) {
    case 'AGENT_STARTED':
      state.status = 'running';
      if (event.modelSettings) state.modelSettings = event.modelSettings;
      break;
    case 'MODEL_CALLED':
      addUsage(state.usage, { ...event.usage, modelCalls: 1, ...(event.usageEstimated && { estimatedCalls: 1 }) });
      for (const call of event.toolCalls) toolCall(state, call.id, call.name, call.args);
      break;
    case 'APPROVAL_REQUESTED': {
      const call = toolCall(state, event.toolCallId, event.tool, event.args);
      call.status = 'awaiting_approval';
      state.pendingApprovals.push({
        id: event.toolCallId,
        tool: event.tool,
        args: event.args,
        argsDigest: event.argsDigest,
        requestedAt: event.at,
        ...(event.expiresAt !== undefined && { expiresAt: event.expiresAt }),
        ...(event.approvers !== undefined && { approvers: event.approvers }),
        ...(event.escalatesTo !== undefined && { escalatesTo: event.escalatesTo }),
        ...(event.preview !== undefined && { preview: event.preview }),
      });
      break;
    }
    case 'APPROVAL_REMINDED': {
      const pending = state.pendingApprovals.find((p) => p.id === event.toolCallId);
      if (pending) pending.reminders = event.reminder;
      break;
    }
    case 'APPROVAL_ESCALATED': {
      const pending = state.pendingApprovals.find((p) => p.id === event.toolCallId);
      if (pending) {
        pending.approvers = event.approvers;
        pending.escalated = true;
        delete pending.escalatesTo;
        if (event.expiresAt !== undefined) pending.expiresAt = event.expiresAt;
        else delete pending.expiresAt;
      }
      break;
    }
    case 'TOOL_APPROVED': {
      const { id: _id, ...decision } = event.decision;
      toolCall(state, event.toolCallId, event.tool, event.args).decision = decision;
      dropPending(state, event.toolCallId);
      break;
    }
    case 'TOOL_DENIED': {
      const call = toolCall(state, event.toolCallId, event.tool, event.args);
      call.status = 'denied';
      call.result = event.result;
      call.endedAt = event.at;
      if (event.decision) {
        const { id: _id, ...decision } = event.decision;
        call.decision = decision;
      }
      dropPending(state, event.toolCallId);
      break;
    }
    case 'APPROVAL_TIMED_OUT': {
      const call = toolCall(state, event.toolCallId, event.tool, undefined);
      call.status = 'timed_out';
      call.result = event.result;
      call.endedAt = event.at;
      dropPending(state, event.toolCallId);
      break;
    }
    case 'TRUST_GRANTED':
      if (!state.trust.some((t) => t.tool === event.tool && t.scope === event.scope)) {
        state.trust.push({
          tool: event.tool,
          scope: event.scope,
          ...(event.approver !== undefined && { approver: event.approver }),
          at: event.at,
        });
      }
      break;
    case 'TOOL_STARTED': {
      const call = toolCall(state, event.toolCallId, event.tool, event.args);
      call.status = 'running';
      call.startedAt = event.at;
      break;
    }
    case 'TOOL_ENDED': {
      const call = toolCall(state, event.toolCallId, event.tool, undefined);
      call.status = 'succeeded';
      call.endedAt = event.at;
      call.durationMs = event.durationMs;
      call.result = event.result;
      break;
    }
    case 'TOOL_FAILED': {
      const call = toolCall(state, event.toolCallId, event.tool, event.args);
      call.status = 'failed';
      call.endedAt = event.at;
      if (event.durationMs !== undefined) call.durationMs = event.durationMs;
      call.error = event.error;
      break;
    }
    case 'HOOK_FAILED':
    case 'DECISION_REJECTED':
      break;
    case 'SUBAGENT_STARTED':
      state.children ??= {};
      state.children[event.childTurnId] = {
        turnId: event.childTurnId,
        agent: event.agent,
        tool: event.tool,
        toolCallId: event.toolCallId,
        inherit: event.inherit,
        status: 'running',
        pendingApprovals: [],
        startedAt: event.at,
      };
      break;
    case 'SUBAGENT_PROGRESS': {
      const child = childRun(state, event.childTurnId);
      if (child && child.endedAt === undefined) {
        child.status = event.status;
        child.pendingApprovals = event.pendingApprovals;
      }
      break;
    }
    case 'SUBAGENT_ENDED': {
      const child = childRun(state, event.childTurnId);
      if (child) {
        child.status = event.status;
        child.pendingApprovals = [];
        child.usage = event.usage;
        child.endedAt = event.at;
        if (event.error !== undefined) child.error = event.error;
      }
      addUsage(state.usage, event.usage);
      break;
    }
    case 'GUARDRAIL_RAN': {
      const { name, kind, tripped, durationMs, info, error, agent, usage } = event;
      (state.guardrails ??= []).push({
        name,
        kind,
        tripped,
        at: event.at,
        ...(durationMs !== undefined && { durationMs }),
        ...(info !== undefined && { info }),
        ...(error !== undefined && { error }),
        ...(agent !== undefined && { agent }),
      });
      if (usage) addUsage(state.usage, { ...usage, modelCalls: 1 });
      break;
    }
    case 'HANDOFF':
      (state.handedOffFrom ??= []).push(event.from);
      state.agent = event.to;
      break;
    case 'CONTEXT_TRIMMED':
      if (event.usage) addUsage(state.usage, { ...event.usage, modelCalls: 1 });
      state.context = {
        dropped: (state.context?.dropped ?? 0) + event.dropped,
        ...((event.summary ?? state.context?.summary) !== undefined && {
          summary: event.summary ?? state.context?.summary,
        }),
      };
      break;
    case 'TURN_COMPLETED':
      state.status = 'completed';
      state.output = event.output;
      if (event.parsed !== undefined) state.parsed = event.parsed;
      return;
    case 'TURN_FAILED':
      state.status = 'failed';
      state.error = event.error;
      abandonOpenCalls(state, event.at, `not completed: the turn failed (${event.error})`);
      return;
    case 'TURN_CANCELLED':
      state.status = 'cancelled';
      abandonOpenCalls(state, event.at, 'not completed: the turn was cancelled');
      return;
  }
  if (state.status === 'running' || state.status === 'awaiting_approval') {
    state.status = state.pendingApprovals.length > 0 ? 'awaiting_approval' : 'running';
  }
}

/** Events with `seq` greater than `afterSeq` (for followers that poll the state). */
export function eventsSince(state: TurnState, afterSeq: number): TurnEvent[] {
  return state.events.filter((e) => e.seq > afterSeq);
}

/**
 * The state as the `state` query answers it (and a turn's result carries its calls): under
 * `BOUNDS.stateBytes` whatever the turn went through. Usually the state itself; past the budget the
 * oldest events go first (`eventCount` still counts them), then long call results and arguments are
 * clipped, newest calls kept whole longest.
 */
export function budgetedState(state: TurnState, maxBytes: number = BOUNDS.stateBytes): TurnState {
  const total = stateBytesAtMost(state, maxBytes); // exact whenever it is over the budget
  if (total <= maxBytes) return state;
  let excess = total - maxBytes;
  let dropped = 0;
  while (dropped < state.events.length && excess > 0) excess -= jsonBytes(state.events[dropped++]) + 1;
  const view: TurnState = { ...state, events: state.events.slice(dropped) };
  if (excess <= 0) return view;
  for (const limit of [BOUNDS.text, 200]) {
    if (jsonBytes(view) <= maxBytes) return view;
    view.toolCalls = view.toolCalls.map((c) => ({
      ...c,
      args: boundJson(c.args, limit),
      ...(c.result !== undefined && { result: clip(c.result, limit) }),
    }));
    if (view.output !== undefined) view.output = clip(view.output, limit * 10);
  }
  return view;
}

/** What `stateBytesAtMost` last knew of a state: after event `seq`, at most `bytes` of JSON. */
const sizeBounds = new WeakMap<TurnState, { seq: number; bytes: number }>();

/**
 * Folding one event grows the state's JSON by at most this many times the event's own JSON, plus
 * {@link GROWTH_SLACK}: the event itself in the ring, and its content at most twice more — a call's
 * arguments in its record and in its pending approval — plus fixed-size fields (statuses, counters).
 * Events that rewrite every open call (the turn failed or was cancelled) are not bounded this way.
 */
const GROWTH_FACTOR = 3;
const GROWTH_SLACK = 1_024;
const UNBOUNDED_GROWTH: ReadonlySet<string> = new Set(['TURN_FAILED', 'TURN_CANCELLED']);

/**
 * The state's size as JSON in UTF-8 bytes, or an upper bound of it that is within `maxBytes`: the
 * exact size measured once, plus what each event folded since can have added (its own bytes, so the
 * cost is that of the new events, not the whole state — a polled state of a long turn was re-serialised
 * per query). Measured exactly again when the bound passes `maxBytes`, when events since were dropped
 * from the ring unmeasured, or after an event of unbounded growth. Over the budget it is exact.
 */
export function stateBytesAtMost(state: TurnState, maxBytes: number): number {
  const known = sizeBounds.get(state);
  if (known && known.seq === state.eventCount && known.bytes <= maxBytes) return known.bytes;
  if (known && known.seq < state.eventCount) {
    const oldest = state.events[0]?.seq ?? Infinity;
    if (oldest <= known.seq + 1) {
      let bytes = known.bytes;
      for (let i = known.seq + 1 - oldest; i < state.events.length && bytes <= maxBytes; i++) {
        const event = state.events[i]!;
        bytes = UNBOUNDED_GROWTH.has(event.type) ? Infinity : bytes + GROWTH_FACTOR * jsonBytes(event) + GROWTH_SLACK;
      }
      if (bytes <= maxBytes) {
        sizeBounds.set(state, { seq: state.eventCount, bytes });
        return bytes;
      }
    }
  }
  const bytes = jsonBytes(state);
  sizeBounds.set(state, { seq: state.eventCount, bytes });
  return bytes;
}
