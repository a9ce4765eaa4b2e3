/**
 * The fuzz run's seed (issue 34): CI's is random and printed with the command that reruns it, and the
 * same seed gives the same cases — so a failure seen once can be run again.
 */
import fc from 'fast-check';
import { classSeed, DEFAULT_CASES_PER_CLASS, fuzzConfig, seedLine } from '../support/fuzz/config';
import { MODEL_ARBITRARIES } from '../support/fuzz/model-cases';

test('CI runs several cases per class at a seed that changes from run to run', () => {
  expect(DEFAULT_CASES_PER_CLASS).toBeGreaterThanOrEqual(4);
  const seeds = new Set(Array.from({ length: 5 }, () => fuzzConfig(20, {}).seed));
  expect(seeds.size).toBeGreaterThan(1);
  expect(fuzzConfig(20, {})).toMatchObject({ casesPerClass: DEFAULT_CASES_PER_CLASS, onDemand: false });
});

test('the printed line gives the seed and the command that reruns it', () => {
  const cfg = fuzzConfig(20, {});
  expect(seedLine(cfg)).toContain(`TILLER_FUZZ_SEED=${cfg.seed} npx jest test/integration/fuzz.test.ts`);
  const bigger = fuzzConfig(20, { TILLER_FUZZ_SEED: '7', TILLER_FUZZ_RUNS: '400' });
  expect(bigger).toEqual({ seed: 7, casesPerClass: 20, onDemand: true, runs: 400 });
  expect(seedLine(bigger)).toContain('TILLER_FUZZ_SEED=7 TILLER_FUZZ_RUNS=400 npx jest');
});

test('the seed the line names gives the same cases again', () => {
  const { seed } = fuzzConfig(20, {});
  const again = fuzzConfig(20, { TILLER_FUZZ_SEED: String(seed) });
  const cases = (s: number) =>
    fc.sample(MODEL_ARBITRARIES['huge-names-ids'], { seed: classSeed(s, 'model/huge-names-ids'), numRuns: 4 });
  expect(JSON.stringify(cases(again.seed))).toBe(JSON.stringify(cases(seed)));
  expect(JSON.stringify(cases(seed + 1))).not.toBe(JSON.stringify(cases(seed)));
});
