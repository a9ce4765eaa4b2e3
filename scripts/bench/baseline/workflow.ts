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
/** The same two numbers and records of about `bytes` of JSON, built once and kept: a bare answer of Tiller's size. */
export const baselineBlob = defineQuery<{ k: number; waiting: number; records: unknown[] }, [number]>('blob');
/** The largest `blob` answer: Temporal's payload limit is 2 MB. */
const BLOB_MAX_BYTES = 1_500_000;
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
  const records: unknown[] = [];
  let recordBytes = 0;
  setHandler(baselineBlob, (bytes) => {
    const want = Math.min(bytes, BLOB_MAX_BYTES); // a query argument: any client may send one
    for (let seq = records.length + 1; recordBytes < want; seq++) {
      const record = {
        seq,
        type: 'TOOL_COMPLETED',
        at: new Date(seq * 1000).toISOString(),
        id: `call-${seq}`,
        result: 'x'.repeat(120),
      };
      records.push(record);
      recordBytes += JSON.stringify(record).length + 1;
    }
    return { k, waiting, records };
  });
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
