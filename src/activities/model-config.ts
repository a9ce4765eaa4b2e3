/**
 * Whether a worker has a model to call. With no `openai` client given and neither `OPENAI_API_KEY` nor
 * `OPENAI_BASE_URL` set, a worker would call api.openai.com without a key and a turn would retry for
 * half a minute before failing; instead its model calls fail at once, not retried, with
 * `ModelNotConfigured` and one line saying what to set (and `setUpWorker` says so when the worker starts).
 */
import { ApplicationFailure } from '@temporalio/activity';
import OpenAI from 'openai';
import { FailureType } from '../core/failures';
import { openAIFromEnv } from './model';

export const MODEL_NOT_CONFIGURED =
  'no model configured: set OPENAI_API_KEY (for api.openai.com) or OPENAI_BASE_URL (any OpenAI-compatible ' +
  'endpoint, e.g. a local server or the scripted model), or give createWorker an openai client';

/** True when the env names a model endpoint or key (`OPENAI_BASE_URL`, `OPENAI_API_KEY`). */
export function modelConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  return !!(env.OPENAI_API_KEY || env.OPENAI_BASE_URL);
}

/** A client whose every request fails before it is sent: `ModelNotConfigured`, not retried. */
class UnconfiguredOpenAI extends OpenAI {
  protected override prepareOptions(): Promise<void> {
    return Promise.reject(
      ApplicationFailure.create({
        type: FailureType.ModelNotConfigured,
        message: MODEL_NOT_CONFIGURED,
        nonRetryable: true,
      }),
    );
  }
}

/** The model client from the env (`openAIFromEnv`), or, when nothing is configured, one that fails fast. */
export function modelClientFromEnv(env: NodeJS.ProcessEnv = process.env): OpenAI {
  return modelConfigured(env) ? openAIFromEnv() : new UnconfiguredOpenAI({ apiKey: 'not-configured', maxRetries: 0 });
}
