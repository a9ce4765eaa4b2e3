/**
 * Tiller's failure vocabulary: every `ApplicationFailure` type it throws or matches, the model errors
 * Temporal must not retry, one way to describe a failure in a sentence, and one checked way to read
 * the `TurnResult` a failed turn carries. Pure (only `@temporalio/common`): workflows, activities and
 * clients import it alike, so a type is never spelled twice.
 */
import { ActivityFailure, ApplicationFailure, ChildWorkflowFailure } from '@temporalio/common';
import { BOUNDS, clip, wellFormed } from './bounds';
import { TurnResult } from './schemas';

/** The failure types of turns, sessions and activities (`ApplicationFailure.type`), by name. */
export const FailureType = {
  /** A turn's or session's input did not validate (never retried). */
  InvalidTurnInput: 'InvalidTurnInput',
  InvalidSessionInput: 'InvalidSessionInput',
  /** A turn ended `failed`; its details carry the `TurnResult` (read it with `turnResultOf`). */
  TurnFailed: 'TurnFailed',
  /**
   * A turn with structured output (`defineAgent({ output })`) ended `failed` because the model's answer
   * still did not match the schema after its retries; its details carry the `TurnResult` like `TurnFailed`.
   */
  InvalidOutput: 'InvalidOutput',
  /** A session's `send` could not start its turn. */
  TurnNotStarted: 'TurnNotStarted',
  /** A `decide` update (or signal) was refused; the message says why. */
  DecisionRejected: 'DecisionRejected',
  /** A session refused `send` or `revokeTrust`; the message says why. */
  SessionRequestRejected: 'SessionRequestRejected',
  /** An agent's instructions function threw (retried) or returned something other than a bounded string. */
  InvalidInstructions: 'InvalidInstructions',
  /** The worker serves no agent of that name. */
  UnknownAgent: 'UnknownAgent',
  /** Model endpoint answers, classified by `classifyModelError` (src/activities/model/errors.ts). */
  ModelBadRequest: 'ModelBadRequest',
  ModelAuthError: 'ModelAuthError',
  ModelNotFound: 'ModelNotFound',
  ModelUnprocessable: 'ModelUnprocessable',
  ModelRateLimited: 'ModelRateLimited',
  ModelUnavailable: 'ModelUnavailable',
  ModelBadResponse: 'ModelBadResponse',
  /** The server answered the same 5xx (not 502/503/504) several times in a row: its own error, not an outage. */
  ModelServerError: 'ModelServerError',
  ModelError: 'ModelError',
  /** The worker has no model endpoint: no `openai` client given, no `OPENAI_API_KEY` or `OPENAI_BASE_URL` (never retried). */
  ModelNotConfigured: 'ModelNotConfigured',
  /**
   * A turn ended `failed` because the model's answer was cut at its token limit (`finish_reason: length`)
   * and the agent does not accept cut answers (`onTruncated`); details carry the `TurnResult`.
   */
  ModelTruncated: 'ModelTruncated',
  /**
   * A turn ended `failed` because the model ran out of context: the server refused the prompt as too long
   * (after one trim and retry, with a `contextWindow`), or the answer stopped short of `maxTokens` because
   * prompt and answer filled the model's context; the message gives both counts. Details carry the `TurnResult`.
   */
  ContextExhausted: 'ContextExhausted',
  /** The model server refused the prompt as longer than its context (400 `exceed_context_size_error`, `context_length_exceeded`). */
  ModelContextExceeded: 'ModelContextExceeded',
  /** A turn ended `failed` because a guardrail tripped (or failed: closed); details carry the `TurnResult` with `guardrail`. */
  GuardrailTripped: 'GuardrailTripped',
  /** A turn ended `failed` because the model refused or the provider filtered its answer (`content_filter`). */
  ModelRefused: 'ModelRefused',
  /** The conversation the model activity read back does not match the digest it was given. */
  ConversationMismatch: 'ConversationMismatch',
  McpNotConfigured: 'McpNotConfigured',
  McpServerUnavailable: 'McpServerUnavailable',
  McpToolNotFound: 'McpToolNotFound',
} as const;
/** One of the {@link FailureType} names. */
export type FailureType = (typeof FailureType)[keyof typeof FailureType];

/** HTTP statuses a model endpoint answers that retrying cannot fix, and the failure type of each. */
export const MODEL_STATUS_NOT_RETRIED: Readonly<Record<number, FailureType>> = {
  400: FailureType.ModelBadRequest,
  401: FailureType.ModelAuthError,
  403: FailureType.ModelAuthError,
  404: FailureType.ModelNotFound,
  422: FailureType.ModelUnprocessable,
};

/** The model activity's `nonRetryableErrorTypes`: the types above, and a server error that repeated. */
export const MODEL_ERRORS_NOT_RETRIED: readonly FailureType[] = [
  ...new Set([...Object.values(MODEL_STATUS_NOT_RETRIED), FailureType.ModelServerError]),
];

/**
 * One sentence for what went wrong, for events, tool results and turn errors: an activity's
 * application failure as `Type: message`, a child workflow's as its cause's message.
 */
export function describeFailure(err: unknown): string {
  if (err instanceof ActivityFailure && err.cause instanceof ApplicationFailure) {
    return `${err.cause.type ?? 'Error'}: ${err.cause.message}`;
  }
  if (err instanceof ActivityFailure) return `${err.message}${err.cause ? `: ${err.cause.message}` : ''}`;
  // A local activity's failure reaches the workflow as the activity threw it, not wrapped: described alike.
  if (err instanceof ApplicationFailure && err.type) return `${err.type}: ${err.message}`;
  if (err instanceof ChildWorkflowFailure && err.cause) return err.cause.message;
  return err instanceof Error ? err.message : String(err);
}

/** The failure types of a turn that ended `failed`: each carries its `TurnResult` in its details. */
const TURN_FAILURES: ReadonlySet<string> = new Set([
  FailureType.TurnFailed,
  FailureType.InvalidOutput,
  FailureType.ModelTruncated,
  FailureType.ContextExhausted,
  FailureType.ModelRefused,
  FailureType.GuardrailTripped,
]);

/**
 * The `TurnResult` a failed turn carries, from its failure as a parent workflow (`ChildWorkflowFailure`)
 * or a client (`WorkflowFailedError.cause`) sees it; undefined when it is not a well-formed one.
 */
export function turnResultOf(failure: unknown): TurnResult | undefined {
  const cause = failure instanceof ChildWorkflowFailure ? failure.cause : failure;
  if (!(cause instanceof ApplicationFailure) || !TURN_FAILURES.has(cause.type ?? '')) return undefined;
  const checked = TurnResult.safeParse(cause.details?.[0]);
  return checked.success ? checked.data : undefined;
}

/** The failure an update's validator or handler throws to refuse a request with `message`. */
export function rejection(type: FailureType, message: string): ApplicationFailure {
  return ApplicationFailure.create({ type, message: wellFormed(clip(message, BOUNDS.text)), nonRetryable: true });
}

/**
 * The key of the value a worker decodes a payload it must not act on into: one it cannot read
 * (src/codec/guard.ts), or, when it requires encryption, a plaintext or undecryptable one
 * (src/codec/encryption.ts). `refusedPayload` says why, for the rejection.
 */
export const REFUSED_PAYLOAD_KEY = 'tillerRefusedPayload';

export function refusedPayload(value: unknown): string | undefined {
  if (!value || typeof value !== 'object' || !(REFUSED_PAYLOAD_KEY in value)) return undefined;
  const why = (value as Record<string, unknown>)[REFUSED_PAYLOAD_KEY];
  return typeof why === 'string' ? clip(why, 300) : 'the payload was refused';
}
