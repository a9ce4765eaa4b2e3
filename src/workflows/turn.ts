/**
 * `agentTurn`: one agent turn as a durable workflow. Model call → tool calls → model call … until the
 * model answers without tool calls. Every effect is an activity; every change of state is an event
 * (./recorder.ts) folded by the pure reducer, so the `state` query is rebuilt exactly by replay.
 *
 * Read top to bottom: the input, the handlers (state, decide, progress of sub-agents), the model
 * loop, the ending. A tool call's own path — checks, approval, preview, run — is ./tool-call.ts.
 */
import {
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  isCancellation,
  patched,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import {
  decideSignal,
  decideUpdate,
  DECIDE_DESCRIPTION,
  stateQuery,
  STATE_DESCRIPTION,
  turnProgressSignal,
  TURN_PROGRESS_DESCRIPTION,
} from '../contract';
import { describeFailure, FailureType, refusedPayload, rejection } from '../core/failures';
import { formatZodError, TurnInput, type TurnResult } from '../core/schemas';
import { ANSWER_TOOL, type AgentSpec, type ApprovalOutcome } from '../core/spec';
import { deniedResult } from '../core/policy';
import { budgetedState, createTurnState } from '../core/state';
import { CallIds } from '../core/call-ids';
import { acts, hookOptions, startOptions } from './activities';
import { ApprovalDesk, deskActivities } from './approvals';
import { serveReads } from './reads';
import { TurnConversation } from './conversation';
import { TurnRecorder } from './recorder';
import { SubAgents } from './subagents';
import { ToolBatch } from './batch';
import { RunBudget, type TurnCarry } from './carry';
import { callModel, checkAnswerLimits, checkLimits, TurnFailure, type ModelStep } from './model-call';
import {
  PATCH_ANSWER_GATE,
  PATCH_CARRIED_WAITS_FIRST,
  PATCH_STRUCTURED_OUTPUT,
  PATCH_TURN_CONTINUE_AS_NEW,
} from './patches';
import type { TurnScope } from './tool-call';

export async function agentTurn(rawInput: TurnInput): Promise<TurnResult> {
  const input = parseInput(rawInput);
  const carried = input.carried as TurnCarry | undefined; // set when the turn continued as new
  const { workflowId } = workflowInfo();
  const recorder = new TurnRecorder(
    carried?.state ??
      createTurnState({
        turnId: workflowId,
        agent: input.agent,
        ...(input.sessionId !== undefined && { sessionId: input.sessionId }),
        ...(input.startedBy !== undefined && { startedBy: input.startedBy }),
        ...(input.trust !== undefined && { trust: input.trust }),
      }),
  );
  const { state } = recorder;
  let spec: AgentSpec | undefined = carried?.spec;
  const budget = new RunBudget(input.maxHistoryEvents);
  const subAgents = new SubAgents(recorder);
  const desk = new ApprovalDesk({ recorder, ...deskActivities(recorder, () => spec) });
  // Before the handlers: a decision that came with this run's first task must find its carried wait.
  const carriedWaits = carried?.batch?.calls.flatMap((c) => (c.waiting ? [c.waiting] : [])) ?? [];
  if (carriedWaits.length > 0 && patched(PATCH_CARRIED_WAITS_FIRST)) desk.adopt(carriedWaits);

  setHandler(stateQuery, () => budgetedState(state), { description: STATE_DESCRIPTION });
  serveReads(state);
  setHandler(
    decideUpdate,
    async (decision) => {
      const verdict = await desk.apply(decision, 'update');
      if (verdict.type === 'rejected') throw rejection(FailureType.DecisionRejected, verdict.reason);
      return verdict.decision;
    },
    {
      validator: (decision) => {
        const verdict = desk.check(decision);
        if (verdict.type === 'rejected') throw rejection(FailureType.DecisionRejected, verdict.reason);
      },
      description: DECIDE_DESCRIPTION,
    },
  );
  // A signal cannot answer: a rejected decision is recorded as DECISION_REJECTED by the desk.
  setHandler(
    decideSignal,
    async (decision) => {
      if (spec?.decideSignal === false)
        return desk.refuseSignal(decision, 'decide signals are off here; use the decide update');
      await desk.apply(decision, 'signal');
    },
    { description: DECIDE_DESCRIPTION },
  );
  setHandler(turnProgressSignal, (progress) => subAgents.onProgress(progress), {
    description: TURN_PROGRESS_DESCRIPTION,
  });

  /** Resolves the agent (an activity: agents live in the worker) and starts mirroring the state. */
  async function startAgent(): Promise<AgentSpec> {
    let started;
    try {
      started = await acts.startTurn.executeWithOptions({ ...startOptions, summary: `start ${input.agent}` }, [
        {
          agent: input.agent,
          input: input.input,
          turnId: state.turnId,
          ...(input.sessionId !== undefined && { sessionId: input.sessionId }),
          ...(input.inherit !== undefined && { inherit: input.inherit }),
        },
      ]);
    } catch (err) {
      if (isCancellation(err)) throw err;
      throw new TurnFailure(`could not start agent ${input.agent}: ${describeFailure(err)}`);
    }
    const { spec } = started;
    mirror(spec, false);
    const tools = spec.tools.map((t) => t.name);
    recorder.record({
      type: 'AGENT_STARTED',
      agent: spec.name,
      input: input.input,
      model: spec.model,
      tools,
      ...(spec.modelSettings && { modelSettings: spec.modelSettings }),
    });
    recorder.hookFailures(started.hookFailures);
    return spec;
  }

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
    const agent = (spec ??= await startAgent());
    if (carried) mirror(agent, true);
    const scope: TurnScope = { spec: agent, recorder, desk, subAgents, workflowId, tokenBudget };
    const conversation = new TurnConversation(agent, input, carried?.messages);
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
    });
    let step: ModelStep | undefined = carried?.batch;
    for (let call = carried?.call ?? 1; ; call++) {
      if (!step) {
        if (budget.due() && patched(PATCH_TURN_CONTINUE_AS_NEW)) await budget.continueWith(input, carry(call));
        step = await callModel({ agent, recorder, conversation, ids }, call);
        const text = step.message.content ?? '';
        if (step.calls.length === 0) {
          // Structured output: a valid answer ends the turn; an invalid one goes back to the model.
          const check = step.output;
          let answer: Answer | undefined;
          if (!agent.output || !check || !patched(PATCH_STRUCTURED_OUTPUT)) answer = { text };
          else if (check.ok) answer = { text, parsed: check.value };
          if (answer) {
            // An answer gate: a human approves the answer, or says why not and the model revises it.
            if (!(agent.answerGate || agent.hooks.approveAnswer) || !patched(PATCH_ANSWER_GATE)) return answer;
            const gated = await gateAnswer(agent, call, answer);
            if (gated.type === 'approved') return gated.answer;
            checkAnswerLimits(call, agent, state.usage.totalTokens, tokenBudget(), 'the answer was not approved');
            conversation.addUserMessage(
              `Your answer was not approved: ${gated.reason}\nRevise your answer accordingly.`,
            );
            step = undefined;
            continue;
          }
          const error = check && !check.ok ? check.error : '';
          invalidAnswers++;
          recorder.record({ type: 'OUTPUT_INVALID', call, attempt: invalidAnswers, error });
          if (invalidAnswers > (agent.output?.maxRetries ?? 0))
            throw new TurnFailure(
              `InvalidOutput: the answer did not match the output schema after ${invalidAnswers} attempts: ${error}`,
              FailureType.InvalidOutput,
            );
          checkAnswerLimits(call, agent, state.usage.totalTokens, tokenBudget());
          conversation.addUserMessage(
            `Your answer does not match the required output schema: ${error}\nAnswer again with only JSON that matches the schema.`,
          );
          step = undefined;
          continue;
        }
        checkLimits(step, call, agent, state.usage.totalTokens, tokenBudget());
      }
      // Calls from one response run concurrently; their results go back in the model's order.
      const batch = new ToolBatch(scope, step.calls);
      for (;;) {
        // Not cancellable: a cancelled turn still waits for its calls (and sub-agents) to end cancelled.
        const quiet = CancellationScope.nonCancellable(() => condition(() => budget.due() && batch.quiet()));
        const results = await Promise.race([batch.done, quiet.then(() => undefined)]);
        if (results) {
          conversation.addToolResults(step.message, results);
          break;
        }
        // Every open call waits for a human and the history is long: continue as new, waits and all.
        if (!patched(PATCH_TURN_CONTINUE_AS_NEW)) {
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

  /**
   * Waits at the desk for a human to approve the answer (the pseudo-tool `final_answer`, arguments
   * `{ text }`); an approver may edit the text of an answer without `output`. An expired gate fails the turn.
   */
  async function gateAnswer(
    agent: AgentSpec,
    call: number,
    answer: Answer,
  ): Promise<{ type: 'approved'; answer: Answer } | { type: 'denied'; reason: string }> {
    const id = `answer-${call}`;
    const args = { text: answer.text };
    const context = {
      agent: agent.name,
      turnId: state.turnId,
      workflowId,
      toolCallId: id,
      tool: ANSWER_TOOL,
      ...(agent.inherits && { inheritsFrom: agent.inherits }),
    };
    const done = (approved: Answer) => {
      recorder.record({ type: 'TOOL_STARTED', toolCallId: id, tool: ANSWER_TOOL, args: { text: approved.text } });
      recorder.record({ type: 'TOOL_ENDED', toolCallId: id, tool: ANSWER_TOOL, durationMs: 0, result: approved.text });
      return { type: 'approved' as const, answer: approved };
    };
    // The agent's approveAnswer hooks first: proceed, deny (the model revises) or ask a human.
    if (agent.hooks.approveAnswer) {
      let outcome: ApprovalOutcome;
      try {
        const response = await acts.approveAnswer.executeWithOptions(
          { ...hookOptions, summary: `approve answer ${call}` },
          [
            {
              agent: agent.name,
              turnId: state.turnId,
              workflowId,
              answerId: id,
              text: answer.text,
              ...(answer.parsed !== undefined && { parsed: answer.parsed }),
              ...(agent.inherits && { inheritsFrom: agent.inherits }),
            },
          ],
        );
        recorder.hookFailures(response.hookFailures, id);
        outcome = response.outcome;
      } catch (err) {
        if (isCancellation(err)) throw err;
        recorder.hookFailures([{ hook: 'approveAnswer', error: describeFailure(err) }], id);
        outcome = { action: 'deny', reason: 'the answer could not be checked; answer again' };
      }
      if (outcome.action !== 'ask') {
        const reason = outcome.action === 'deny' ? deniedResult(outcome.reason) : undefined;
        const decision = {
          id,
          approved: outcome.action === 'proceed',
          scope: 'once' as const,
          at: recorder.now(),
          via: 'hook' as const,
          ...(reason !== undefined && { reason }),
        };
        if (reason === undefined) {
          recorder.record({ type: 'TOOL_APPROVED', toolCallId: id, tool: ANSWER_TOOL, args, decision });
          return done(answer);
        }
        recorder.record({
          type: 'TOOL_DENIED',
          toolCallId: id,
          tool: ANSWER_TOOL,
          args,
          result: reason,
          decision,
          reason,
        });
        return { type: 'denied', reason };
      }
    }
    const outcome = await desk.wait({ ...context, args }, agent.answerGate ?? {}, answer.text);
    if (outcome.type === 'refused') {
      if (state.toolCalls.find((c) => c.id === id)?.status === 'timed_out')
        throw new TurnFailure(`the answer was not approved: ${outcome.result}`);
      return { type: 'denied', reason: outcome.result };
    }
    const edited = (outcome.decision.args as { text?: unknown } | undefined)?.text;
    return done(typeof edited === 'string' && !agent.output ? { text: edited } : answer);
  }

  const result = (status: TurnResult['status']): TurnResult => ({
    output: state.output ?? '',
    ...(state.parsed !== undefined && { parsed: state.parsed }),
    usage: state.usage,
    toolCalls: budgetedState(state).toolCalls,
    status,
    trust: state.trust,
    ...(state.error !== undefined && { error: state.error }),
  });

  try {
    const answer = await runLoop();
    recorder.record({
      type: 'TURN_COMPLETED',
      output: answer.text,
      ...(answer.parsed !== undefined && { parsed: answer.parsed }),
    });
    await condition(allHandlersFinished);
    return result('completed');
  } catch (err) {
    if (isCancellation(err)) {
      recorder.record({ type: 'TURN_CANCELLED' });
      throw err;
    }
    if (!(err instanceof TurnFailure)) throw err;
    recorder.record({ type: 'TURN_FAILED', error: err.message });
    await condition(allHandlersFinished);
    throw ApplicationFailure.create({
      type: err.type,
      message: err.message,
      nonRetryable: true,
      details: [result('failed')],
    });
  }
}

/** A turn's answer: its text, and with structured output the parsed value. */
interface Answer {
  text: string;
  parsed?: unknown;
}

function parseInput(raw: TurnInput): TurnInput {
  const parsed = TurnInput.safeParse(raw);
  if (parsed.success) return parsed.data;
  throw ApplicationFailure.create({
    type: FailureType.InvalidTurnInput,
    message: `invalid agentTurn input: ${refusedPayload(raw) ?? formatZodError(parsed.error)}`,
    nonRetryable: true,
  });
}
