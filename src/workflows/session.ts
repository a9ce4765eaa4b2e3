/**
 * `agentSession`: one conversation. Each `send` runs a turn as a child `agentTurn` workflow with the
 * conversation so far and the session's trust; the session rolls up usage, keeps session-scope trust
 * (revocable), and continues as new at a turn boundary so its history never grows without bound.
 */
import {
  ApplicationFailure,
  ChildWorkflowFailure,
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
  RevokeTrustInput,
  SendInput,
  SessionInput,
  WIRE_VERSION,
  type SessionCarry,
  type SessionState,
  type TurnProgress,
  type TurnResult,
} from '../core/schemas';
import { WORKFLOW_TYPE_TURN } from './messages';
import {
  revokeTrustUpdate,
  REVOKE_TRUST_DESCRIPTION,
  sendUpdate,
  SEND_DESCRIPTION,
  sessionStateQuery,
  SESSION_STATE_DESCRIPTION,
  turnProgressSignal,
} from './session-messages';
import type { agentTurn } from './turn';

const DEFAULT_MAX_HISTORY_EVENTS = 10_000;

function resultOf(err: unknown): TurnResult | undefined {
  const cause = err instanceof ChildWorkflowFailure ? err.cause : undefined;
  if (cause instanceof ApplicationFailure && cause.type === 'TurnFailed') return cause.details?.[0] as TurnResult;
  return undefined;
}

export async function agentSession(rawInput: SessionInput): Promise<SessionState> {
  const parsed = SessionInput.safeParse(rawInput);
  if (!parsed.success) {
    throw ApplicationFailure.create({
      type: 'InvalidSessionInput',
      message: `invalid agentSession input: ${formatZodError(parsed.error)}`,
      nonRetryable: true,
    });
  }
  const input = parsed.data as SessionInput;
  const sessionId = workflowInfo().workflowId;
  const carry: SessionCarry = input.carried ?? {
    conversation: [],
    trust: (input.trust ?? []).filter((t) => t.scope === 'session'),
    usage: emptyUsage(),
    turns: [],
    turnSeq: 0,
    runs: 0,
  };
  let queued: { turnId: string; input: string } | undefined;
  /** Turns whose child workflow exists (or failed to start, with the reason): what `send` waits for. */
  const started: Record<string, string | true> = {};
  let current: TurnProgress | undefined;
  let turnsThisRun = 0;

  const state = (): SessionState => ({
    version: WIRE_VERSION,
    sessionId,
    agent: input.agent,
    status: current || queued ? 'running' : 'idle',
    ...(current && { currentTurn: current }),
    turns: carry.turns,
    trust: carry.trust,
    usage: carry.usage,
    conversationLength: carry.conversation.length,
    runs: carry.runs,
  });

  setHandler(sessionStateQuery, state, { description: SESSION_STATE_DESCRIPTION });
  setHandler(
    sendUpdate,
    async ({ input: text }) => {
      carry.turnSeq += 1;
      const turnId = `${sessionId}-turn-${carry.turnSeq}`;
      queued = { turnId, input: text };
      // Answer once the turn's workflow exists, so the caller can query or await it right away.
      await condition(() => started[turnId] !== undefined);
      const outcome = started[turnId];
      delete started[turnId];
      if (outcome !== true) {
        throw ApplicationFailure.create({
          type: 'TurnNotStarted',
          message: `turn ${turnId} did not start: ${outcome}`,
        });
      }
      return { turnId };
    },
    {
      validator: (raw) => {
        const checked = SendInput.safeParse(raw);
        if (!checked.success) throw new Error(`malformed send: ${formatZodError(checked.error)}`);
        if (input.tokenBudget !== undefined && carry.usage.totalTokens >= input.tokenBudget) {
          throw new Error(
            `session ${sessionId} has used its token budget (${carry.usage.totalTokens} of ${input.tokenBudget} tokens)`,
          );
        }
        const busy = current?.turnId ?? queued?.turnId;
        if (busy) {
          throw new Error(
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
        if (!checked.success) throw new Error(`malformed revokeTrust: ${formatZodError(checked.error)}`);
        const { tool, scope } = checked.data;
        if (!carry.trust.some((t) => t.tool === tool && (scope === undefined || t.scope === scope))) {
          const held = carry.trust.map((t) => `${t.tool} (${t.scope})`).join(', ') || '(none)';
          throw new Error(`no trust grant for ${tool} in session ${sessionId}; grants: ${held}`);
        }
      },
      description: REVOKE_TRUST_DESCRIPTION,
    },
  );
  setHandler(turnProgressSignal, (progress) => {
    if (current && progress.turnId === current.turnId) current = progress;
  });

  const maxHistory = input.maxHistoryEvents ?? DEFAULT_MAX_HISTORY_EVENTS;
  for (;;) {
    await condition(() => queued !== undefined);
    const { turnId, input: text } = queued!;
    queued = undefined;
    current = { turnId, status: 'running', pendingApprovals: [] };
    const summary = { turnId, input: text, status: 'running' as const, startedAt: new Date().toISOString() };
    carry.turns.push(summary);
    let result: TurnResult;
    // The grants this turn starts with: its result repeats them, but the session has the last word on
    // those (one may be revoked before the session sees the turn end), so only new grants are merged.
    const given = carry.trust.map((t) => t.tool);
    try {
      const child = await startChild<typeof agentTurn>(WORKFLOW_TYPE_TURN, {
        workflowId: turnId,
        args: [
          {
            agent: input.agent,
            input: text,
            sessionId,
            trust: carry.trust,
            history: carry.conversation,
            ...(input.tokenBudget !== undefined && {
              tokenBudget: Math.max(0, input.tokenBudget - carry.usage.totalTokens),
            }),
          },
        ],
        parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
        staticSummary: `${input.agent} (session ${sessionId}): ${text.slice(0, 100)}`,
        staticDetails: `**Tiller turn** of session \`${sessionId}\` · agent **${input.agent}**\n\n> ${text.slice(0, 1_000)}`,
      });
      started[turnId] = true;
      result = await child.result();
    } catch (err) {
      if (isCancellation(err)) throw err;
      started[turnId] ??= err instanceof Error ? err.message : String(err);
      const failed = resultOf(err);
      result = failed ?? {
        output: '',
        usage: emptyUsage(),
        toolCalls: [],
        status: 'failed',
        trust: [],
        error: err instanceof Error ? err.message : String(err),
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
