/**
 * Starting a turn, with and without eager workflow start: the same one-answer turns (no tool), started
 * alternately by a TillerClient on the worker's own connection that asks the server to hand the first
 * workflow task straight back (`requestEagerStart`) and by one that does not. Measured from the start
 * call to the model's first request (at the model server: the turn's first workflow task and its
 * `startTurn` activity are behind it) and to the result.
 */
import { randomUUID } from 'node:crypto';
import { TillerClient } from '../../../src/client';
import { AGENT, planInput } from '../fixture';
import type { BenchEnv } from '../env';
import { roundSummary, summarize, type Summary } from '../stats';

export interface StartVariant {
  /** Start call → the model's first request. */
  firstRequestMs: Summary;
  /** Start call → the turn's result. */
  resultMs: Summary;
  /** Starts the server answered with the first workflow task (eagerly started). */
  eagerlyStarted: number;
}

export interface StartResult {
  turns: number;
  eager: StartVariant;
  plain: StartVariant;
}

export async function runStart(env: BenchEnv, opts: { turns: number; warm: number }): Promise<StartResult> {
  const { taskQueue, tiller: eager } = env.queue('start');
  const plain = new TillerClient(env.nativeClient, taskQueue, { eagerStart: false });
  if (!eager.eagerStart) throw new Error('start section: the bench client cannot start turns eagerly');
  const worker = await env.worker(taskQueue);
  return worker.runUntil(async () => {
    const acc = new Map<TillerClient, { first: number[]; result: number[]; eager: number }>([
      [eager, { first: [], result: [], eager: 0 }],
      [plain, { first: [], result: [], eager: 0 }],
    ]);
    for (let i = 0; i < opts.warm + opts.turns; i++) {
      // Alternate which goes first, so neither always follows the other's idle moment.
      for (const client of i % 2 ? [eager, plain] : [plain, eager]) {
        const key = `start-${randomUUID()}`;
        const t0 = performance.now();
        const handle = await client.startTurn({ agent: AGENT, input: planInput({ key, steps: 0 }), turnId: key });
        const result = await client.result(key);
        const done = performance.now();
        if (result.status !== 'completed') throw new Error(`start section: turn ${key} ended ${result.status}`);
        const firstRequest = env.rec.requests.get(key)?.[0];
        env.rec.requests.delete(key);
        if (i < opts.warm || firstRequest === undefined) continue;
        const a = acc.get(client)!;
        a.first.push(firstRequest - t0);
        a.result.push(done - t0);
        if ((handle as { eagerlyStarted?: boolean }).eagerlyStarted) a.eager++;
      }
    }
    const variant = (client: TillerClient): StartVariant => {
      const a = acc.get(client)!;
      return {
        firstRequestMs: roundSummary(summarize(a.first), 2),
        resultMs: roundSummary(summarize(a.result), 2),
        eagerlyStarted: a.eager,
      };
    };
    return { turns: opts.turns, eager: variant(eager), plain: variant(plain) };
  });
}
