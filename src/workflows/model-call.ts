/**
 * One model call of the turn: the activity, its record (`MODEL_CALLED` with usage and the calls it asked
 * for, under ids unique in the turn), and the limits that end a turn whose model keeps asking for tools.
 */
import { ActivityFailure, ApplicationFailure, isCancellation } from '@temporalio/workflow';
import type { CallIds } from '../core/call-ids';
import { FailureType } from '../core/failures';
import { describeModelFailure } from '../core/model-failure';
import type { AgentSpec, AssistantMessage, ModelResponse, OutputCheck } from '../core/spec';
import { msToNumber } from '@temporalio/common/lib/time';
import { acts, modelCallOptions } from './activities';
import type { BatchCall } from './batch';
import type { TurnConversation } from './conversation';
import { PATCH_CONTEXT_EXHAUSTED, PATCH_FINISH_REASONS } from './patches';
import type { TurnRecorder } from './recorder';
import { argCheckOf, argsToCheck, displayArgs } from './tool-call/args';
import type { RunVersion } from './versions';

/** Ends the turn as `failed` with this message (thrown inside the loop, caught at its end). */
export class TurnFailureError extends Error {
  /** The failure's type: `TurnFailed` unless said otherwise (`InvalidOutput`). */
  constructor(
    message: string,
    readonly type: string = FailureType.TurnFailed,
    /** The server refused the prompt as too long, with its counts when it gave them (the context window retries once). */
    readonly refused?: { promptTokens?: number; contextTokens?: number },
  ) {
    super(message);
  }
}

/** The server's refusal of a prompt as too long (`ModelContextExceeded`), as a turn failure; else undefined. */
function refusedPrompt(err: unknown, call: number, version: RunVersion): TurnFailureError | undefined {
  const cause = err instanceof ActivityFailure ? err.cause : undefined;
  if (!(cause instanceof ApplicationFailure) || cause.type !== FailureType.ModelContextExceeded) return undefined;
  if (!version.has(PATCH_CONTEXT_EXHAUSTED)) return undefined;
  const d = (cause.details?.[0] ?? {}) as { promptTokens?: unknown; contextTokens?: unknown };
  const n = (v: unknown) => (typeof v === 'number' && Number.isSafeInteger(v) && v > 0 ? v : undefined);
  const promptTokens = n(d.promptTokens);
  const contextTokens = n(d.contextTokens);
  const counts =
    promptTokens !== undefined
      ? ` (a prompt of ${promptTokens} tokens${contextTokens !== undefined ? `, a context of ${contextTokens}` : ''})`
      : '';
  return new TurnFailureError(
    `model call ${call}: the model server refused the prompt as longer than its context${counts} (${cause.message}); ` +
      `give the agent a contextWindow no larger than the server's context (per request slot), or send less`,
    FailureType.ContextExhausted,
    {
      ...(promptTokens !== undefined && { promptTokens }),
      ...(contextTokens !== undefined && { contextTokens }),
    },
  );
}

/** What a model call needs from its turn. */
export interface ModelTurn {
  agent: AgentSpec;
  recorder: TurnRecorder;
  conversation: TurnConversation;
  ids: CallIds;
  /**
   * The server refused the prompt as too long: what to do instead of failing the turn (the context
   * window trims and asks once more; PATCH_WINDOW_IN_MODEL_CALL). Only that refusal reaches it.
   */
  retryRefused?: (refused: TurnFailureError) => Promise<ModelStep>;
}

export interface ModelStep {
  message: AssistantMessage;
  /** The tool calls the model asked for, in its order (empty: this is the answer). */
  calls: BatchCall[];
  /** Structured output: the answer checked against the agent's schema. */
  output?: OutputCheck;
}

/**
 * Calls the model (an activity) and records its response. Not an async function: the SDK captures a
 * stack trace for every promise the workflow sandbox creates, and an evicted turn replays every step's.
 */
export function callModel(turn: ModelTurn, call: number): Promise<ModelStep> {
  const { recorder, conversation, agent } = turn;
  const retry = agent.modelRetry;
  const request = conversation.request(recorder.state.turnId, call);
  const firstToken = retry?.firstToken !== undefined && { firstTokenMs: msToNumber(retry.firstToken) };
  const checkArgs = recorder.version.atCost ? argsToCheck(agent) : [];
  return acts.callModel
    .executeWithOptions({ ...modelCallOptions(retry), summary: `model call ${call}` }, [
      { ...request, ...firstToken, ...(checkArgs.length > 0 && { checkArgs }) },
    ])
    .then(
      (response) => takeResponse(turn, call, response),
      (err: unknown) => {
        if (isCancellation(err)) throw err;
        const refused = refusedPrompt(err, call, recorder.version);
        if (refused && turn.retryRefused) return turn.retryRefused(refused);
        throw refused ?? new TurnFailureError(`model call ${call} failed: ${describeModelFailure(err, retry)}`);
      },
    );
}

/** The model's response as the turn's next step: recorded, added to the conversation, its calls named uniquely. */
function takeResponse(turn: ModelTurn, call: number, response: ModelResponse): ModelStep {
  const { agent, recorder, conversation, ids } = turn;
  const { message, usage, durationMs, finishReason, reasoning, refusal } = response;
  const calls = (message.tool_calls ?? []).map((t, i) => {
    const check = argCheckOf(response.argChecks?.[i]);
    return { id: ids.unique(t.id), name: t.function.name, raw: t.function.arguments, ...(check && { check }) };
  });
  recorder.record({
    type: 'MODEL_CALLED',
    call,
    usage,
    durationMs,
    toolCalls: calls.map((c) => ({ id: c.id, name: c.name, args: displayArgs(c.raw, agent) })),
    ...(finishReason !== undefined && { finishReason }),
    text: message.content,
    ...(response.usageSource === 'estimated' && { usageEstimated: true }),
    ...(reasoning !== undefined && { reasoning }),
    ...(refusal !== undefined && { refusal }),
    ...(response.api === 'responses' && { api: 'responses' }),
  });
  checkFinish(agent, call, response, recorder.version);
  conversation.addResponse(message);
  return { message, calls, ...(response.output && { output: response.output }) };
}

/**
 * A response that is not an answer fails the turn, saying why: cut at the token limit (unless the agent
 * accepts cut answers), filtered by the provider, or refused by the model. Behind a patch: before it,
 * such a response was taken as the answer.
 */
function checkFinish(agent: AgentSpec, call: number, response: ModelResponse, version: RunVersion): void {
  const { finishReason, refusal, message } = response;
  const said = !!message.content || (message.tool_calls?.length ?? 0) > 0;
  if (finishReason === 'length' && agent.onTruncated !== 'accept' && version.has(PATCH_FINISH_REASONS)) {
    const exhausted = contextExhausted(agent, call, response, version);
    if (exhausted) throw exhausted;
    throw new TurnFailureError(
      `model call ${call} was cut at the token limit (finish_reason length, ${response.usage.outputTokens} output tokens): ` +
        `raise modelSettings.maxTokens, or set onTruncated: 'accept' to keep cut answers`,
      FailureType.ModelTruncated,
    );
  }
  if ((finishReason === 'content_filter' || (refusal !== undefined && !said)) && version.has(PATCH_FINISH_REASONS)) {
    const why =
      refusal !== undefined
        ? `the model refused: ${refusal}`
        : 'the provider filtered the answer (finish_reason content_filter)';
    throw new TurnFailureError(`model call ${call}: ${why}`, FailureType.ModelRefused);
  }
}

/**
 * An answer cut before `maxTokens` (or, with a context window, with none set): the prompt and the answer
 * filled the model's context, and a larger `maxTokens` cannot help. Undefined for an answer cut at
 * `maxTokens` (or at a limit Tiller cannot tell: no `maxTokens`, no window).
 */
function contextExhausted(
  agent: AgentSpec,
  call: number,
  response: ModelResponse,
  version: RunVersion,
): TurnFailureError | undefined {
  const { inputTokens, outputTokens } = response.usage;
  const max = agent.modelSettings?.maxTokens;
  const window = agent.contextWindow;
  // Cut at maxTokens; or, with neither maxTokens nor a window, at a limit Tiller cannot tell.
  if (max !== undefined ? outputTokens >= max : !window) return undefined;
  if (!version.has(PATCH_CONTEXT_EXHAUSTED)) return undefined;
  const unset = max === undefined;
  const advice = window
    ? `lower contextWindow.tokens (${window.tokens}) to the model's context (per request slot)` +
      (unset ? `, or set modelSettings.maxTokens to the room an answer needs (unset, it keeps a quarter)` : '')
    : `give the agent a contextWindow (the model's context, per request slot) so earlier turns are trimmed`;
  return new TurnFailureError(
    `model call ${call} ran out of context: a prompt of ${inputTokens} tokens and an answer cut at ` +
      `${outputTokens}${unset ? '' : ` (short of maxTokens ${max})`} filled it; ${advice}`,
    FailureType.ContextExhausted,
  );
}

/** Fails the turn when the model still asks for tools past its token budget or its model calls. */
export function checkLimits(step: ModelStep, call: number, agent: AgentSpec, used: number, budget?: number): void {
  const still = `the model still asked for tools (${step.calls.map((c) => c.name).join(', ')})`;
  if (budget !== undefined && used > budget) {
    throw new TurnFailureError(`token budget exceeded: ${used} tokens used of ${budget}; ${still}`);
  }
  if (call >= agent.maxModelCalls) {
    throw new TurnFailureError(`maxModelCalls (${agent.maxModelCalls}) reached: ${still} after ${call} calls`);
  }
}

/** Fails the turn when an invalid structured answer may not be retried: past its token budget or its model calls. */
export function checkAnswerLimits(
  call: number,
  agent: AgentSpec,
  used: number,
  budget?: number,
  still = 'the answer still did not match the output schema',
): void {
  if (budget !== undefined && used > budget) {
    throw new TurnFailureError(`token budget exceeded: ${used} tokens used of ${budget}; ${still}`);
  }
  if (call >= agent.maxModelCalls) {
    throw new TurnFailureError(`maxModelCalls (${agent.maxModelCalls}) reached: ${still} after ${call} calls`);
  }
}
