/**
 * Issue 12's fuzz harness: hostile model responses and hostile decisions against a real worker and
 * the run's dev server, one fresh turn per case, one test per class of input.
 *
 * Every case is held to the invariants of test/support/fuzz/invariants.ts:
 *  I1 a defined state (completed, failed, or awaiting approval with nothing in flight) within 30 s
 *     of the last input, and an awaiting turn still ends on cancel within 15 s;
 *  I2 `state` answers (within 5 s) and is under 1 MB as JSON;
 *  I3 no WorkflowTaskFailed event and no workflow task on a second attempt (one exception: during a
 *     flood of signals, a task the server force-closed because more events arrived than it buffers
 *     is counted, not charged, if the turn recovers — no workflow can prevent it);
 *  I4 `delete_file` (gated) never ran without a valid approving decision; the sentinel file survives;
 *  I5 no amplification: history ≤ 64 KiB + 4 × the model's answers + 4 KiB per tool activity; a
 *     refused decision grows `state` by ≤ 4 KiB and history by ≤ 8 KiB beyond its own signal event;
 *  I6 the worker is unharmed: no prototype pollution in its process, and it still completes a plain
 *     turn after the case (a canary; a worker that fails it is replaced, so the next case starts clean).
 * The budgets and the reasons for them are in test/support/fuzz/config.ts.
 *
 * CI runs 4 cases per class at a random seed, printed first with the command that reruns the same cases
 * (TILLER_FUZZ_SEED=<seed>). A larger run, on demand:
 *   npm run fuzz -- --runs 400 --seed 7      (or TILLER_FUZZ_RUNS=400 TILLER_FUZZ_SEED=7 npx jest test/integration/fuzz.test.ts)
 * The summary (cases per class, seed, how each ended, which invariants failed) is printed at the end;
 * TILLER_FUZZ_TRACE=1 prints how long each step of each case took.
 * The 30 × 1.9 MB signal flood (past Temporal's 50 MB history limit) is test/integration/fuzz-flood.test.ts.
 */
import fc from 'fast-check';
import { createHarness, type Harness } from '../support/harness';
import { classSeed, fuzzConfig, seedLine } from '../support/fuzz/config';
import { DECISION_ARBITRARIES, DECISION_CLASSES, type DecisionClass } from '../support/fuzz/decision-cases';
import { runDecisionCase } from '../support/fuzz/decision-runner';
import { fuzzEnv, type FuzzEnv } from '../support/fuzz/env';
import { drainAbandoned } from '../support/fuzz/history';
import { tracer } from '../support/fuzz/trace';
import { MODEL_ARBITRARIES, MODEL_CLASSES, type ModelClass } from '../support/fuzz/model-cases';
import { runModelCase } from '../support/fuzz/model-runner';
import { Tally } from '../support/fuzz/tally';

const MODEL_TESTS: Record<ModelClass, string> = {
  'deep-args': 'tool arguments nested thousands of levels deep',
  'huge-args': 'tool arguments of up to 300 KiB (long strings, wide objects, escapes)',
  'odd-unicode': 'odd Unicode in tool names, ids, arguments and text (look-alike tool names included)',
  'prototype-keys':
    'prototype names (__proto__, constructor …) as call ids, tool names, argument keys and stream indexes',
  'huge-names-ids': 'tool names and call ids of hundreds of KB',
  'huge-text': 'model text of up to 1.3 MB',
  'duplicate-ids': 'duplicate and colliding tool call ids',
  'many-calls': 'hundreds of tool calls in one response',
  'non-json': 'non-JSON bodies, broken streams and non-JSON tool arguments',
  'wrong-types': 'wrong types in every field of a completion or a stream chunk',
};

const REFUSED = 'are refused without bloating state or history, and the turn still decides';
const DECISION_TESTS: Record<DecisionClass, string> = {
  'wrong-types': `decisions with wrong types ${REFUSED}`,
  'near-miss': `decisions for the pending call with one thing wrong ${REFUSED}`,
  'unknown-ids': `decisions for unknown ids ${REFUSED}`,
  'prototype-ids': `decisions whose id names an Object.prototype member (__proto__, constructor …) ${REFUSED}`,
  'oversized-fields': `decisions with one field of up to 1.9 MB ${REFUSED}`,
  'deep-json': `decisions nested up to 100 000 levels deep ${REFUSED}`,
  'bad-encoding': `decision payloads that are not JSON or not labelled JSON ${REFUSED}`,
  'flood-signals': `floods of 50-300 refused decide signals (and up to 3 of 1.9 MB) at once ${REFUSED}`,
  'flood-updates': `floods of 30-120 refused decide updates at once ${REFUSED}`,
  'approve-edited-args':
    'approvals with hostile edited arguments (deep, 1.9 MB, wide, odd Unicode) leave the turn defined, readable and unwedged, the sentinel alive',
};

const cfg = fuzzConfig(MODEL_CLASSES.length + DECISION_CLASSES.length);
const tally = new Tally(cfg.seed, cfg.casesPerClass);
// First, before any case runs: a run that hangs or crashes still said how to reproduce it.
process.stdout.write(`${seedLine(cfg)}\n`);
/** Per class: the worst case is every case at its bounds (settle 30 s, cancel 15 s, queries). */
const classTimeout = 30_000 + cfg.casesPerClass * 75_000;

let h: Harness;
let env: FuzzEnv | undefined;

beforeAll(async () => {
  h = await createHarness({ chunkSize: 4096 });
  env = await fuzzEnv(h);
}, 60_000);

afterAll(async () => {
  console.log(`${tally.cases()}\n${tally.summary()}\n  worker replaced ${env?.worker.restarts ?? 0} times`);
  const trace = tracer('fuzz run');
  const drained = await drainAbandoned();
  if (!drained.startsWith('0 ')) console.log(drained);
  trace(drained);
  await env?.close();
  trace('worker stopped');
  await h?.close();
  trace('harness closed');
}, 120_000);

const sample = <T>(arb: fc.Arbitrary<T>, cls: string): T[] =>
  fc.sample(arb, { seed: classSeed(cfg.seed, cls), numRuns: cfg.casesPerClass });

describe('fuzz: hostile model responses', () => {
  for (const cls of MODEL_CLASSES) {
    const name = `model/${cls}`;
    test(
      `${name}: ${MODEL_TESTS[cls]} keep the turn defined, readable, unwedged and gated`,
      async () => {
        for (const c of sample(MODEL_ARBITRARIES[cls], name)) tally.add(name, await runModelCase(env!, c));
        expect(tally.failures(name)).toEqual([]);
      },
      classTimeout,
    );
  }
});

describe('fuzz: hostile decisions', () => {
  for (const cls of DECISION_CLASSES) {
    const name = `decide/${cls}`;
    test(
      `${name}: ${DECISION_TESTS[cls]}`,
      async () => {
        for (const c of sample(DECISION_ARBITRARIES[cls], name)) tally.add(name, await runDecisionCase(env!, c));
        expect(tally.failures(name)).toEqual([]);
      },
      classTimeout,
    );
  }
});
