/**
 * `agentTurn`: one agent turn as a durable workflow. Model call → tool calls → model call … until the
 * model answers without tool calls. Every effect is an activity; every change of state is an event
 * (./recorder.ts) folded by the pure reducer, so the `state` query is rebuilt exactly by replay.
 *
 * Read top to bottom: the input (./turn-start.ts), the handlers (reads: ./reads.ts; decisions and
 * sub-agents' progress: ./decisions.ts), the model loop, the ending. A tool call's own path — checks,
 * approval, preview, run — is ./tool-call/tool-call.ts and ./tool-call/approval.ts; what follows an answer (structured
 * output, answer gates) is ./answer-gate.ts.
 */
import {
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  isCancellation,
  workflowInfo,
} from '@temporalio/workflow';
import type { TurnInput, TurnResult } from '../core/schemas';
import type { AgentSpec } from '../core/spec';
import { createTurnState } from '../core/state';
import { CallIds } from '../core/call-ids';
import { settleAnswer, type Answer } from './answer-gate';
import { ApprovalDesk } from './desk/approvals';
import { deskActivities } from './desk/activities';
import { serveDecisions } from './decisions';
import { serveReads } from './reads';
import { TurnConversation } from './conversation';
import { TurnRecorder } from './recorder';
import { SubAgents } from './subagents';
import { ToolBatch } from './batch';
import { RunBudget, type TurnCarry } from './carry';
import { checkAnswerLimits, checkLimits, TurnFailureError, type ModelStep } from './model-call';
import { ContextWindow } from './context';
import { TurnGuardrails } from './guardrails';
import { handOff, planHandoff } from './handoffs';
import { PATCH_CARRIED_WAITS_FIRST, PATCH_TURN_CONTINUE_AS_NEW } from './patches';
import { handlersFinished, type TurnHost, type TurnScope } from './turn-scope';
import { turnResult } from './turn-result';
import { parseInput, startAgent } from './turn-start';
import { RunVersion } from './versions';

export async function agentTurn(rawInput: TurnInput): Promise<TurnResult> {
  return runTurn(parseInput(rawInput), { turnId: workflowInfo().workflowId });
}

/** The turn's body: in its own workflow (`agentTurn`), or inside a session's (./session-inline.ts). */
export async function runTurn(input: TurnInput, host: TurnHost): Promise<TurnResult> {
  const version = new RunVersion(); // first: which recorded path this run takes
  const carried = input.carried as TurnCarry | undefined; // set when the turn continued as new
  const { workflowId } = workflowInfo();
  const recorder = new TurnRecorder(
    carried?.state ??
      createTurnState({
        turnId: host.turnId,
        agent: input.agent,
        ...(input.sessionId !== undefined && { sessionId: input.sessionId }),
        ...(input.startedBy !== undefined && { startedBy: input.startedBy }),
        ...(input.trust !== undefined && { trust: input.trust }),
      }),
    version,
  );
  const { state } = recorder;
  host.watch?.(state);
  let spec: AgentSpec | undefined = carried?.spec;
  const budget = new RunBudget(input.maxHistoryEvents, host.inline);
  const subAgents = new SubAgents(recorder);
  const desk = new ApprovalDesk({ recorder, ...deskActivities(recorder, () => spec) });
  // Before the handlers: a decision that came with this run's first task must find its carried wait.
  const carriedWaits = carried?.batch?.calls.flatMap((c) => (c.waiting ? [c.waiting] : [])) ?? [];
  if (carriedWaits.length > 0 && version.has(PATCH_CARRIED_WAITS_FIRST)) desk.adopt(carriedWaits);

  serveReads(state, host.inline);
  serveDecisions(desk, () => spec, subAgents);
  const guards = new TurnGuardrails(recorder, input);
  let window: ContextWindow | undefined;

  /** Mirrors the state to search attributes, details and the parent; at once for a continued run. */
  function mirror(agent: AgentSpec, now: boolean): void {
    const parentTurnId = input.parent?.turnId;
    recorder.startMirroring({
      model: agent.model,
      searchAttributes: agent.searchAttributes,
      ...(parentTurnId && { parentTurnId }),
    });
    if (now) recorder.mirrorNow();
  }

  /** The smaller of the agent's per-turn budget and what the session has left, if either is set. */
  const tokenBudget = () => {
    const limits = [spec?.limits?.turnTokens, input.tokenBudget].filter((n): n is number => n !== undefined);
    return limits.length ? Math.min(...limits) : undefined;
  };

  /** Calls the model until it answers without tool calls; returns that answer (and its parsed value). */
  async function runLoop(): Promise<Answer> {
    let agent = (spec ??= await startAgent(input, recorder, (started) => mirror(started, false)));
    if (carried) mirror(agent, true);
    const scope: TurnScope = { spec: agent, recorder, desk, subAgents, workflowId, tokenBudget };
    const conversation = new TurnConversation(agent, input, version, carried?.messages, carried?.context?.history);
    const context = (window = new ContextWindow(conversation, recorder, carried?.context, input.contextCalibration));
    const blocking = carried ? undefined : guards.startInput(agent);
    if (blocking) await blocking;
    const ids = new CallIds(carried?.seenIds);
    let invalidAnswers = carried?.invalidAnswers ?? 0;
    const carry = (call: number, batch?: TurnCarry['batch']): TurnCarry => ({
      state,
      spec: agent,
      messages: conversation.all(),
      call,
      seenIds: ids.list(),
      ...(batch && { batch }),
      ...(invalidAnswers > 0 && { invalidAnswers }),
      ...(agent.contextWindow && { context: context.carry() }),
    });
    let step: ModelStep | undefined = carried?.batch;
    for (let call = carried?.call ?? 1; ; call++) {
      if (!step) {
        if (budget.due() && version.has(PATCH_TURN_CONTINUE_AS_NEW)) await budget.continueWith(input, carry(call));
        const room = agent.contextWindow;
        const fitting = room && context.fit(agent, room);
        if (fitting) await fitting;
        step = await guards.beside(context.ask({ agent, recorder, conversation, ids }, call));
        if (agent.contextWindow) context.observed();
        if (step.calls.length === 0) {
          const plain = !agent.output && !agent.answerGate && !agent.hooks.approveAnswer;
          if (plain) return { text: step.message.content ?? '' };
          const next = await settleAnswer({ agent, recorder, desk, workflowId }, step, call, invalidAnswers);
          if (next.type === 'final') return next.answer;
          if (next.type === 'invalid') invalidAnswers = next.attempts;
          // Back to the model: it revises a denied answer, or answers again to match the schema.
          checkAnswerLimits(call, agent, state.usage.totalTokens, tokenBudget(), next.limitReason);
          conversation.addUserMessage(next.message);
          step = undefined;
          continue;
        }
        checkLimits(step, call, agent, state.usage.totalTokens, tokenBudget());
      }
      // A handoff: the response's other calls run, then the rest of the turn is the new agent's.
      const handoff = planHandoff(agent, step.calls, recorder);
      if (handoff) {
        conversation.addToolResults(step.message, await new ToolBatch(scope, handoff.calls).done);
        if (handoff.to) scope.spec = spec = agent = await handOff(handoff.to, agent, { recorder, conversation, input });
        step = undefined;
        continue;
      }
      // Calls from one response run concurrently; their results go back in the model's order.
      const batch = new ToolBatch(scope, step.calls);
      if (!batch.mayWaitForHuman) {
        // No call can wait for a human, so the batch is never quiet before it ends, and the turn
        // cannot continue as new in between: it waits for the results alone. (The watch below costs
        // the SDK's sandbox about ten promises a step, each with a captured stack trace; it adds no
        // commands, so leaving it out changes no history.) A step of one such call creates the SDK's
        // promises for the two activities and five of Tiller's: see callModel, ToolCall.run, inOrder.
        conversation.addToolResults(step.message, await batch.done);
        step = undefined;
        continue;
      }
      for (;;) {
        // Not cancellable: a cancelled turn still waits for its calls (and sub-agents) to end cancelled.
        // It ends with the batch: a condition left waiting is evaluated on every activation for the rest
        // of the turn (one more per step). `due` reads workflowInfo, the costlier check: last.
        const quiet = CancellationScope.nonCancellable(() =>
          condition(() => batch.ended() || (batch.quiet() && budget.due())),
        );
        const results = await Promise.race([batch.done, quiet.then(() => undefined)]);
        if (results) {
          conversation.addToolResults(step.message, results);
          break;
        }
        // Every open call waits for a human and the history is long: continue as new, waits and all.
        if (!version.has(PATCH_TURN_CONTINUE_AS_NEW)) {
          conversation.addToolResults(step.message, await batch.done);
          break;
        }
        await condition(allHandlersFinished);
        if (batch.quiet())
          await budget.continueWith(input, carry(call, { message: step.message, calls: batch.carry() }));
      }
      step = undefined;
    }
  }

  const result = (status: TurnResult['status']) => turnResult(state, status, window);

  try {
    const answer = await runLoop();
    const checked = guards.checkOutput(spec!, {
      text: answer.text,
      ...(answer.parsed !== undefined && { parsed: answer.parsed }),
    });
    if (checked) await checked;
    recorder.record({
      type: 'TURN_COMPLETED',
      output: answer.text,
      ...(answer.parsed !== undefined && { parsed: answer.parsed }),
    });
    await handlersFinished(host);
    return result('completed');
  } catch (err) {
    if (isCancellation(err)) {
      recorder.record({ type: 'TURN_CANCELLED' });
      throw err;
    }
    if (!(err instanceof TurnFailureError)) throw err;
    recorder.record({ type: 'TURN_FAILED', error: err.message });
    await handlersFinished(host);
    throw ApplicationFailure.create({
      type: err.type,
      message: err.message,
      nonRetryable: true,
      details: [result('failed')],
    });
  }
}
