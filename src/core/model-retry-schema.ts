/**
 * The checked shape of `ModelRetrySpec` (`defineAgent({ modelRetry })`, a provider's `retry`, and
 * `TILLER_PROVIDERS`): durations as a Temporal duration (milliseconds, or text such as "10 minutes").
 */
import type { Duration } from '@temporalio/common';
import { msToNumber } from '@temporalio/common/lib/time';
import { z } from 'zod';

const MAX_MS = 7 * 24 * 3600_000;

function msOf(value: number | string): number | undefined {
  try {
    const ms = msToNumber(value as Parameters<typeof msToNumber>[0]);
    return Number.isFinite(ms) ? ms : undefined;
  } catch {
    return undefined;
  }
}

const duration = (least: number): z.ZodType<Duration> =>
  z.union([z.number(), z.string().max(64)]).refine(
    (d) => {
      const ms = msOf(d);
      return ms !== undefined && ms >= least && ms <= MAX_MS;
    },
    `must be a duration from ${least / 1000} s to 7 days (milliseconds, or text such as "10 minutes")`,
  ) as unknown as z.ZodType<Duration>;

export const ModelRetryConfig = z.strictObject({
  /** The whole call, retries included (schedule-to-close). */
  budget: duration(1_000).optional(),
  /** One attempt's wait for the first chunk (or a whole unstreamed answer). */
  firstToken: duration(1_000).optional(),
});
