/**
 * A model server's refusal of a prompt longer than its context, told apart from other bad requests: the
 * workflow's context window trims and asks once more (src/workflows/context.ts). llama-server answers
 * 400 `{ error: { type: 'exceed_context_size_error', message: 'the request exceeds the available context
 * size…', n_prompt_tokens, n_ctx } }`; OpenAI 400 `{ error: { code: 'context_length_exceeded' } }`; vLLM
 * and others say "maximum context length" in the message.
 */
import { ApplicationFailure } from '@temporalio/activity';
import OpenAI from 'openai';
import { FailureType } from '../../core/failures';
import { redact } from './errors';

const MESSAGE = /exceeds? the available context size|maximum context length|context length exceeded|context window/i;

/** The server's counts, as the failure's details carry them to the workflow. */
export interface ContextExceededDetails {
  promptTokens?: number;
  contextTokens?: number;
}

const count = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isSafeInteger(v) && v > 0 ? v : undefined;

/** The failure for a prompt the server refused as too long (not retried as it is), or undefined for any other error. */
export function contextExceeded(
  err: unknown,
  secrets: readonly (string | undefined)[],
): ApplicationFailure | undefined {
  if (!(err instanceof OpenAI.APIError) || err.status !== 400) return undefined;
  const body = (err.error && typeof err.error === 'object' ? err.error : {}) as Record<string, unknown>;
  const known = body.type === 'exceed_context_size_error' || body.code === 'context_length_exceeded';
  if (!known && !MESSAGE.test(err.message)) return undefined;
  const promptTokens = count(body.n_prompt_tokens);
  const contextTokens = count(body.n_ctx);
  const details: ContextExceededDetails = {
    ...(promptTokens !== undefined && { promptTokens }),
    ...(contextTokens !== undefined && { contextTokens }),
  };
  return ApplicationFailure.create({
    type: FailureType.ModelContextExceeded,
    message: redact(`model endpoint answered 400: ${err.message}`, secrets),
    nonRetryable: true,
    details: [details],
  });
}
