/**
 * The Temporal baseline: the smallest durable loops with the same shape as Tiller's — per step one
 * model activity (the same HTTP call to the scripted model) and one tool activity; a wait for an
 * update before a gated tool; a query — but none of Tiller's state, events, visibility or growing
 * conversation. Tiller − baseline = what Tiller itself adds on top of Temporal.
 */
import { condition, defineQuery, defineUpdate, proxyActivities, setHandler } from '@temporalio/workflow';
import type { BaselineActivities } from './activities';

const acts = proxyActivities<BaselineActivities>({ startToCloseTimeout: '5 minutes' });

export const baselineState = defineQuery<{ k: number; waiting: number }>('state');
export const baselineDecide = defineUpdate<boolean, [number]>('decide');

export async function baselineTurn(input: string, steps: number): Promise<number> {
  for (let k = 0; k < steps; k++) {
    await acts.baselineModel(input, k);
    await acts.baselineTool(k);
  }
  await acts.baselineModel(input, steps);
  return steps;
}

/** `steps` free steps, then `gates` steps that each wait for a `decide` update before their tool. */
export async function baselineGated(input: string, steps: number, gates: number): Promise<number> {
  let k = 0;
  let waiting = -1;
  let decided = 0;
  setHandler(baselineState, () => ({ k, waiting }));
  setHandler(
    baselineDecide,
    () => {
      decided++;
      waiting = -1;
      return true;
    },
    {
      validator: (g) => {
        if (g !== waiting) throw new Error(`gate ${g} is not waiting`);
      },
    },
  );
  for (; k < steps; k++) {
    await acts.baselineModel(input, k);
    await acts.baselineTool(k);
  }
  for (let g = 0; g < gates; g++, k++) {
    await acts.baselineModel(input, k);
    waiting = g;
    await condition(() => decided > g);
    await acts.baselineGatedTool(g);
  }
  await acts.baselineModel(input, k);
  return k;
}
