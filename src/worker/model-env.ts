/** The default model client's settings from the environment: `TILLER_MODEL` and `TILLER_MODEL_API`. */
import type { ModelApi } from '../core/spec';

export const DEFAULT_MODEL = 'gpt-4o-mini';

export function defaultModel(env: NodeJS.ProcessEnv = process.env): string {
  return env.TILLER_MODEL || DEFAULT_MODEL;
}

/** `TILLER_MODEL_API`: the API the default model client speaks (`chat` or `responses`); anything else is refused. */
export function modelApiFromEnv(env: NodeJS.ProcessEnv = process.env): ModelApi | undefined {
  const api = env.TILLER_MODEL_API?.trim();
  if (!api) return undefined;
  if (api === 'chat' || api === 'responses') return api;
  throw new Error(`TILLER_MODEL_API must be chat or responses (not ${JSON.stringify(api.slice(0, 40))})`);
}
