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
  condition,
  isCancellation,
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
import { describeFailure, FailureType, rejection } from '../core/failures';
import { formatZodError, TurnInput, type TurnResult } from '../core/schemas';
import type { AgentSpec } from '../core/spec';
import { createTurnState } from '../core/state';
import { CallIds } from '../core/call-ids';
import { acts, modelOptions, startOptions } from './activities';
import { ApprovalDesk, deskActivities } from './approvals';
import { serveReads } from './reads';
import { TurnConversation } from './conversation';
import { TurnRecorder } from './recorder';
import { SubAgents } from './subagents';
import { displayArgs, ToolCall, type TurnScope } from './tool-call';

/** Ends the turn as `failed` with this message (thrown inside the loop, caught at its end). */
class TurnFailure extends Error {}

export async function agentTurn(rawInput: TurnInput): Promise<TurnResult> {
  const input = parseInput(rawInput);
  const { workflowId } = workflowInfo();
  const recorder = new TurnRecorder(
    createTurnState({
      turnId: workflowId,
      agent: input.agent,
      ...(input.sessionId !== undefined && { sessionId: input.sessionId }),
      ...(input.trust !== undefined && { trust: input.trust }),
    }),
  );
  const { state } = recorder;
  let spec: AgentSpec | undefined;
  const subAgents = new SubAgents(recorder);
  const desk = new ApprovalDesk({ recorder, ...deskActivities(recorder, () => spec) });

  setHandler(stateQuery, () => state, { description: STATE_DESCRIPTION });
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
  setHandler(decideSignal, async (decision) => void (await desk.apply(decision, 'signal')), {
    description: DECIDE_DESCRIPTION,
  });
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
    recorder.startMirroring({
      model: spec.model,
      searchAttributes: spec.searchAttributes,
      ...(input.parent && { parentTurnId: input.parent.turnId }),
    });
    const tools = spec.tools.map((t) => t.name);
    recorder.record({ type: 'AGENT_STARTED', agent: spec.name, input: input.input, model: spec.model, tools });
    recorder.hookFailures(started.hookFailures);
    return spec;
  }

  /** The smaller of the agent's per-turn budget and what the session has left, if either is set. */
  const tokenBudget = () => {
    const limits = [spec?.limits?.turnTokens, input.tokenBudget].filter((n): n is number => n !== undefined);
    return limits.length ? Math.min(...limits) : undefined;
  };

  /** Calls the model until it answers without tool calls; returns that answer. */
  async function runLoop(): Promise<string> {
    const agent = (spec = await startAgent());
    const scope: TurnScope = { spec: agent, recorder, desk, subAgents, workflowId, tokenBudget };
    const conversation = new TurnConversation(agent, input);
    const ids = new CallIds();
    for (let call = 1; ; call++) {
      let response;
      try {
        response = await acts.callModel.executeWithOptions({ ...modelOptions, summary: `model call ${call}` }, [
          conversation.request(state.turnId, call),
        ]);
      } catch (err) {
        if (isCancellation(err)) throw err;
        throw new TurnFailure(`model call ${call} failed: ${describeFailure(err)}`);
      }
      const { message, usage, durationMs, finishReason } = response;
      const requested = message.tool_calls ?? [];
      const calls = requested.map((t) => ({ id: ids.unique(t.id), name: t.function.name, raw: t.function.arguments }));
      recorder.record({
        type: 'MODEL_CALLED',
        call,
        usage,
        durationMs,
        toolCalls: calls.map((c) => ({ id: c.id, name: c.name, args: displayArgs(c.raw, agent) })),
        ...(finishReason !== undefined && { finishReason }),
        text: message.content,
      });
      conversation.addResponse(message);
      if (requested.length === 0) return message.content ?? '';
      const still = `the model still asked for tools (${calls.map((c) => c.name).join(', ')})`;
      const budget = tokenBudget();
      if (budget !== undefined && state.usage.totalTokens > budget) {
        throw new TurnFailure(`token budget exceeded: ${state.usage.totalTokens} tokens used of ${budget}; ${still}`);
      }
      if (call >= agent.maxModelCalls) {
        throw new TurnFailure(`maxModelCalls (${agent.maxModelCalls}) reached: ${still} after ${call} calls`);
      }
      // Calls from one response run concurrently; their results go back in the model's order.
      const results = await Promise.all(calls.map((c) => new ToolCall(scope, c.id, c.name, c.raw).run()));
      conversation.addToolResults(message, results);
    }
  }

  const result = (status: TurnResult['status']): TurnResult => ({
    output: state.output ?? '',
    usage: state.usage,
    toolCalls: state.toolCalls,
    status,
    trust: state.trust,
    ...(state.error !== undefined && { error: state.error }),
  });

  try {
    const output = await runLoop();
    recorder.record({ type: 'TURN_COMPLETED', output });
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
      type: FailureType.TurnFailed,
      message: err.message,
      nonRetryable: true,
      details: [result('failed')],
    });
  }
}

function parseInput(raw: TurnInput): TurnInput {
  const parsed = TurnInput.safeParse(raw);
  if (parsed.success) return parsed.data;
  throw ApplicationFailure.create({
    type: FailureType.InvalidTurnInput,
    message: `invalid agentTurn input: ${formatZodError(parsed.error)}`,
    nonRetryable: true,
  });
}
