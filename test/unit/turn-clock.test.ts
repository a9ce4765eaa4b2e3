/**
 * The turn's clock (src/workflows/clock.ts): workflow time, except in the activation that resolves a
 * local activity, where it reads the activity's start plus the duration it reported. Workflow time is
 * `Date.now()` in a workflow, one value per activation; here jest's fake clock stands for it.
 */
import { TurnClock } from '../../src/workflows/clock';

beforeEach(() => jest.useFakeTimers({ now: 1_000 }));
afterEach(() => jest.useRealTimers());

/** Resolves `value` in a later activation: workflow time moves to `at` first. */
const resolvedAt =
  <T>(at: number, value: T) =>
  () => {
    jest.setSystemTime(at);
    return Promise.resolve(value);
  };

test('outside a local activity it is workflow time', () => {
  const clock = new TurnClock();
  expect(clock.now()).toBe(1_000);
  jest.setSystemTime(2_000);
  expect(clock.iso()).toBe(new Date(2_000).toISOString());
});

test('the activation that resolves a local activity reads its start plus the duration it reported', async () => {
  const clock = new TurnClock();
  // Resolved at 1,500 on this worker (a forced task's time); the activity reported 20 ms.
  const result = await clock.local(resolvedAt(1_500, { durationMs: 20 }), (r) => r.durationMs);
  expect(result).toEqual({ durationMs: 20 });
  expect(clock.now()).toBe(1_020);
  expect(clock.now()).toBe(1_020);
  // The next activation (another time) reads workflow time again, and keeps doing so.
  jest.setSystemTime(1_800);
  expect(clock.now()).toBe(1_800);
  jest.setSystemTime(1_500);
  expect(clock.now()).toBe(1_500);
});

test('without a reported duration, or when the activity fails, it reads the start', async () => {
  const clock = new TurnClock();
  await clock.local(resolvedAt(1_300, 'spec'));
  expect(clock.now()).toBe(1_000);
  jest.setSystemTime(4_000);
  const failing = () => {
    jest.setSystemTime(4_700);
    return Promise.reject(new Error('boom'));
  };
  await expect(clock.local(failing, () => 5)).rejects.toThrow('boom');
  expect(clock.now()).toBe(4_000);
});

test('a local activity scheduled right after another starts at the held time', async () => {
  const clock = new TurnClock();
  await clock.local(resolvedAt(1_400, 30), (d) => d);
  // Scheduled in the same activation: its start is 1,030, not the activation's 1,400.
  await clock.local(resolvedAt(1_600, 10), (d) => d);
  expect(clock.now()).toBe(1_040);
});
