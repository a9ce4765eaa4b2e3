/**
 * `defineAgent({ contextWindow })` checked as it arrives — from TypeScript or plain JS alike: a budget
 * in whole tokens within reason and a known strategy, nothing else (a misspelt key would otherwise be a
 * setting silently not applied).
 */
import { z } from 'zod';
import { formatZodError } from '../core/schemas';

/** The fewest and the most tokens a context window may have. */
export const CONTEXT_WINDOW_TOKENS = { min: 256, max: 100_000_000 } as const;

/** An agent's `contextWindow`, as `defineAgent` takes it. */
export const ContextWindowOptions = z.strictObject({
  tokens: z
    .number({ error: 'tokens must be a number' })
    .int('tokens must be a whole number')
    .min(CONTEXT_WINDOW_TOKENS.min, `tokens must be at least ${CONTEXT_WINDOW_TOKENS.min}`)
    .max(CONTEXT_WINDOW_TOKENS.max, `tokens must be at most ${CONTEXT_WINDOW_TOKENS.max}`),
  strategy: z.enum(['trim', 'summarize'], { error: "strategy must be 'trim' or 'summarize'" }).optional(),
});

/** Throws a clear error for a `contextWindow` an agent cannot have. */
export function checkContextWindow(agent: string, window: unknown): void {
  if (window === undefined) return;
  const parsed = ContextWindowOptions.safeParse(window);
  if (!parsed.success) throw new Error(`agent ${agent}: invalid contextWindow: ${formatZodError(parsed.error)}`);
}
