/**
 * `agentSession`: one conversation. Each `send` runs a turn as a child `agentTurn` workflow with the
 * conversation so far and the session's trust; the session rolls up usage, keeps session-scope trust
 * (revocable), and continues as new at a turn boundary so its history never grows without bound.
 */
import {
  ApplicationFailure,
  ParentClosePolicy,
  allHandlersFinished,
  condition,
  continueAsNew,
  isCancellation,
  startChild,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import {
  emptyUsage,
  formatZodError,
  type Principal,
  RevokeTrustInput,
  SendInput,
  SessionInput,
  TurnProgressCheck,
  WIRE_VERSION,
  type SessionCarry,
  type SessionState,
  type TurnProgress,
  type TurnResult,
} from '../core/schemas';
import {
  revokeTrustUpdate,
  REVOKE_TRUST_DESCRIPTION,
  sendUpdate,
  SEND_DESCRIPTION,
  sessionStateQuery,
  SESSION_STATE_DESCRIPTION,
  sessionTurnDetails,
  sessionTurnSummary,
  runningTurnAttributes,
  TillerSession,
  turnProgressSignal,
  TURN_PROGRESS_DESCRIPTION,
  WORKFLOW_TYPE_TURN,
  type AgentTurnWorkflow,
} from '../core/contract';
import { boundProgress } from '../core/subagents';
import { usableCalibration } from '../core/context';
import { describeFailure, FailureType, turnResultOf } from '../core/failures';
import { inlineTurnId } from '../core/inline-turns';
import { InlineTurns } from './session-inline';
import { keepContext, refused, strangerOf } from './session-rules';

const DEFAULT_MAX_HISTORY_EVENTS = 10_000;
/** Turn summaries a session keeps in its state (and carries): the newest ones. */
export const MAX_TURN_SUMMARIES = 200;

export async function agentSession(rawInput: SessionInput): Promise<SessionState> {
  const parsed = SessionInput.safeParse(rawInput);
  if (!parsed.success) {
    throw ApplicationFailure.create({
      type: FailureType.InvalidSessionInput,
      message: `invalid agentSession input: ${formatZodError(parsed.error)}`,
      nonRetryable: true,
    });
  }
  const input = parsed.data as SessionInput;
  const sessionId = workflowInfo().workflowId;
  // Started with Tiller's search attributes (TillerClient does): its turns start with them as a running
  // turn shows them, and do not set them again (./visibility.ts).
  const shown = workflowInfo().typedSearchAttributes.get(TillerSession) === sessionId;
  const carry: SessionCarry = input.carried ?? {
    conversation: [],
    trust: (input.trust ?? []).filter((t) => t.scope === 'session'),
    usage: emptyUsage(),
    turns: [],
    turnSeq: 0,
    runs: 0,
  };
  // Carried from outside (a session started with `carried`): only a calibration a provider could have counted.
  if (carry.calibration !== undefined && !usableCalibration(carry.calibration)) delete carry.calibration;
  let queued: { turnId: string; input: string; principal?: Principal } | undefined;
  /** Turns whose child workflow exists (or failed to start, with the reason): what `send` waits for. */
  const started: Record<string, string | true> = {};
  let current: TurnProgress | undefined;
  let turnsThisRun = 0;
  // A session of inline turns runs them in its own workflow (./session-inline.ts), not as children.
  const inline = input.inlineTurns ? new InlineTurns(sessionId, carry) : undefined;

  const state = (): SessionState => ({
    version: WIRE_VERSION,
    sessionId,
    agent: input.agent,
    ...(input.owner && { owner: input.owner }),
    status: current || queued ? 'running' : 'idle',
    ...(current && { currentTurn: inline?.progress() ?? current }),
    turns: carry.turns,
    trust: carry.trust,
    usage: carry.usage,
    conversationLength: carry.conversation.length,
    runs: carry.runs,
    ...(carry.summary !== undefined && { summary: carry.summary }),
  });

  setHandler(sessionStateQuery, state, { description: SESSION_STATE_DESCRIPTION });
  setHandler(
    sendUpdate,
    async ({ input: text, principal }) => {
      carry.turnSeq += 1;
      const turnId = inline ? inlineTurnId(sessionId, carry.turnSeq) : `${sessionId}-turn-${carry.turnSeq}`;
      queued = { turnId, input: text, ...(principal && { principal }) };
      // Answer once the turn's workflow exists, so the caller can query or await it right away.
      await condition(() => started[turnId] !== undefined);
      const outcome = started[turnId];
      delete started[turnId];
      if (outcome !== true) {
        throw ApplicationFailure.create({
          type: FailureType.TurnNotStarted,
          message: `turn ${turnId} did not start: ${outcome}`,
        });
      }
      return { turnId };
    },
    {
      validator: (raw) => {
        const checked = SendInput.safeParse(raw);
        if (!checked.success) throw refused(`malformed send: ${formatZodError(checked.error)}`);
        const stranger = strangerOf(sessionId, input.owner, checked.data.principal);
        if (stranger !== undefined) throw refused(stranger);
        if (input.tokenBudget !== undefined && carry.usage.totalTokens >= input.tokenBudget) {
          throw refused(
            `session ${sessionId} has used its token budget (${carry.usage.totalTokens} of ${input.tokenBudget} tokens)`,
          );
        }
        const busy = current?.turnId ?? queued?.turnId;
        if (busy) {
          throw refused(
            `session ${sessionId} is still running turn ${busy}; send again when it has finished (decide its pending approvals first)`,
          );
        }
      },
      description: SEND_DESCRIPTION,
    },
  );
  setHandler(
    revokeTrustUpdate,
    ({ tool, scope }) => {
      carry.trust = carry.trust.filter((t) => !(t.tool === tool && (scope === undefined || t.scope === scope)));
      return carry.trust;
    },
    {
      validator: (raw) => {
        const checked = RevokeTrustInput.safeParse(raw);
        if (!checked.success) throw refused(`malformed revokeTrust: ${formatZodError(checked.error)}`);
        const { tool, scope } = checked.data;
        if (!carry.trust.some((t) => t.tool === tool && (scope === undefined || t.scope === scope))) {
          const held = carry.trust.map((t) => `${t.tool} (${t.scope})`).join(', ') || '(none)';
          throw refused(`no trust grant for ${tool} in session ${sessionId}; grants: ${held}`);
        }
      },
      description: REVOKE_TRUST_DESCRIPTION,
    },
  );
  setHandler(
    turnProgressSignal,
    (progress) => {
      const checked = TurnProgressCheck.safeParse(progress);
      if (!checked.success) return; // not from a turn of ours
      if (current && progress.turnId === current.turnId) current = boundProgress(checked.data);
    },
    { description: TURN_PROGRESS_DESCRIPTION },
  );

  const maxHistory = input.maxHistoryEvents ?? DEFAULT_MAX_HISTORY_EVENTS;
  for (;;) {
    await condition(() => queued !== undefined);
    const { turnId, input: text, principal } = queued!;
    queued = undefined;
    current = { turnId, status: 'running', pendingApprovals: [] };
    const summary = { turnId, input: text, status: 'running' as const, startedAt: new Date().toISOString() };
    carry.turns.push(summary);
    // The turns' summaries: the newest MAX_TURN_SUMMARIES, this one included (`turnSeq` counts them all).
    if (carry.turns.length > MAX_TURN_SUMMARIES) carry.turns.splice(0, carry.turns.length - MAX_TURN_SUMMARIES);
    let result: TurnResult;
    // The grants this turn starts with: its result repeats them, but the session has the last word on
    // those (one may be revoked before the session sees the turn end), so only new grants are merged.
    const given = carry.trust.map((t) => t.tool);
    const turnInput = {
      agent: input.agent,
      input: text,
      sessionId,
      ...(principal && { startedBy: principal.name }),
      trust: carry.trust,
      history: carry.conversation,
      ...(carry.calibration && { contextCalibration: carry.calibration }),
      ...(input.tokenBudget !== undefined && {
        tokenBudget: Math.max(0, input.tokenBudget - carry.usage.totalTokens),
      }),
    };
    try {
      if (inline) {
        started[turnId] = true;
        result = await inline.run(turnId, turnInput);
      } else {
        const child = await startChild<AgentTurnWorkflow>(WORKFLOW_TYPE_TURN, {
          workflowId: turnId,
          args: [turnInput],
          parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
          ...(shown && { typedSearchAttributes: runningTurnAttributes(input.agent, sessionId) }),
          staticSummary: sessionTurnSummary(input.agent, sessionId, text),
          staticDetails: sessionTurnDetails(input.agent, sessionId, text),
        });
        started[turnId] = true;
        result = await child.result();
      }
    } catch (err) {
      if (isCancellation(err)) throw err;
      started[turnId] ??= describeFailure(err);
      result = turnResultOf(err) ?? {
        output: '',
        usage: emptyUsage(),
        toolCalls: [],
        status: 'failed',
        trust: [],
        error: describeFailure(err),
      };
    }
    Object.assign(summary, {
      status: result.status,
      usage: result.usage,
      endedAt: new Date().toISOString(),
      ...(result.output && { output: result.output }),
      ...(result.error !== undefined && { error: result.error }),
    });
    carry.usage = {
      inputTokens: carry.usage.inputTokens + result.usage.inputTokens,
      outputTokens: carry.usage.outputTokens + result.usage.outputTokens,
      totalTokens: carry.usage.totalTokens + result.usage.totalTokens,
      modelCalls: carry.usage.modelCalls + result.usage.modelCalls,
    };
    for (const grant of result.trust.filter((t) => t.scope === 'session' && !given.includes(t.tool))) {
      if (!carry.trust.some((t) => t.tool === grant.tool && t.scope === 'session')) carry.trust.push(grant);
    }
    keepContext(carry, result.context);
    if (inline) carry.lastResult = { turnId, result };
    if (result.status === 'completed') {
      carry.conversation.push({ role: 'user', content: text }, { role: 'assistant', content: result.output });
    }
    current = undefined;
    turnsThisRun += 1;

    const info = workflowInfo();
    if (
      info.continueAsNewSuggested ||
      info.historyLength > maxHistory ||
      (input.maxTurnsPerRun !== undefined && turnsThisRun >= input.maxTurnsPerRun)
    ) {
      // A `send` that arrives now waits for its turn to start: run it first, continue as new after.
      await condition(() => allHandlersFinished() || queued !== undefined);
      if (queued === undefined) {
        const { carried: _old, ...options } = input;
        await continueAsNew<typeof agentSession>({ ...options, carried: { ...carry, runs: carry.runs + 1 } });
      }
    }
  }
}
