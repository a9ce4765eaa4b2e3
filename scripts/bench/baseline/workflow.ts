/**
 * The Temporal baseline: the smallest durable loop with the same shape as a turn — per step one model
 * activity (the same HTTP call to the scripted model) and one tool activity — but none of Tiller's
 * state, events, visibility or growing conversation. Durable − baseline = what Tiller itself adds.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { BaselineActivities } from './activities';

const acts = proxyActivities<BaselineActivities>({ startToCloseTimeout: '5 minutes' });

export async function baselineTurn(input: string, steps: number): Promise<number> {
  for (let k = 0; k < steps; k++) {
    await acts.baselineModel(input, k);
    await acts.baselineTool(k);
  }
  await acts.baselineModel(input, steps);
  return steps;
}
