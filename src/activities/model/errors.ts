/**
 * How a failed model call becomes a Temporal failure: which are retried (and when), which are not, and
 * the credentials taken out of every message first.
 */
import { ApplicationFailure } from '@temporalio/activity';
import OpenAI from 'openai';
import { BOUNDS, clip } from '../../core/bounds';
import { FailureType, MODEL_STATUS_NOT_RETRIED } from '../../core/failures';

const RETRYABLE_STATUS = new Set([408, 409, 429]);

function retryAfterMs(headers: Headers | undefined): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const after = headers.get('retry-after');
  if (!after) return undefined;
  if (Number.isFinite(Number(after))) return Math.max(0, Number(after) * 1000);
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** Removes credentials from text that may reach history, logs or clients (an endpoint may echo the key). */
export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret && secret.length >= 8) out = out.split(secret).join('[redacted]');
  }
  return out;
}

/**
 * The server's own message: the `error.message` of its JSON body, else its body (without the SDK's status
 * prefix), clipped: it goes into history as the failure's message, and an endpoint's body can be any size.
 */
export function serverMessage(err: InstanceType<typeof OpenAI.APIError>): string {
  const inner = (err.error as { message?: unknown } | undefined)?.message;
  if (typeof inner === 'string' && inner) return clip(inner, BOUNDS.text);
  return clip(err.message.replace(/^\d{3} /, ''), BOUNDS.text);
}

/**
 * The one place that decides whether a failed model call is retried: 408/409/429/5xx and network
 * errors are (honouring `retry-after`), other 4xx are not, each with a clear failure type and the
 * server's own message. (A 5xx that repeats is failed earlier, by `askRepeating`.)
 */
export function classifyModelError(err: unknown): ApplicationFailure {
  if (err instanceof ApplicationFailure) return err;
  if (err instanceof OpenAI.APIConnectionError) {
    return ApplicationFailure.create({
      type: FailureType.ModelUnavailable,
      message: `model endpoint unreachable: ${err.message}`,
    });
  }
  if (err instanceof OpenAI.APIError && typeof err.status === 'number') {
    const status = err.status;
    const message = `model endpoint answered ${status}: ${serverMessage(err)}`;
    if (RETRYABLE_STATUS.has(status) || status >= 500) {
      const delay = retryAfterMs(err.headers);
      return ApplicationFailure.create({
        type: status === 429 ? FailureType.ModelRateLimited : FailureType.ModelUnavailable,
        message,
        ...(delay !== undefined && { nextRetryDelay: delay }),
      });
    }
    return ApplicationFailure.create({
      type: MODEL_STATUS_NOT_RETRIED[status] ?? FailureType.ModelBadRequest,
      message: `${message} (not retried)`,
      nonRetryable: true,
    });
  }
  const message = err instanceof Error ? err.message : String(err);
  return ApplicationFailure.create({
    type: FailureType.ModelBadResponse,
    message: `unusable model response: ${message}`,
  });
}

/** The failure `classifyModelError` made, its message with every secret taken out. */
export function redactedFailure(err: unknown, secrets: readonly (string | undefined)[]): ApplicationFailure {
  const failure = classifyModelError(err);
  const message = redact(failure.message, secrets);
  if (message === failure.message) return failure;
  return ApplicationFailure.create({
    type: failure.type ?? FailureType.ModelError,
    message,
    nonRetryable: failure.nonRetryable ?? false,
    ...(failure.nextRetryDelay != null && { nextRetryDelay: failure.nextRetryDelay }),
  });
}

/** An unusable response: retried like a server error (a model may answer well next time). */
export function bad(message: string): never {
  throw ApplicationFailure.create({
    type: FailureType.ModelBadResponse,
    message: `unusable model response: ${message}`,
  });
}
