/** `tiller run`'s live model text: whole lines under a gutter, partial lines at the call's end, discards said. */
import { LiveTextPrinter } from '../../src/cli/live-text';

const delta = (text: string, extra: { skipped?: number; attempt?: number } = {}) =>
  ({
    type: 'delta',
    call: 1,
    attempt: extra.attempt ?? 1,
    text,
    ...(extra.skipped && { skipped: extra.skipped }),
  }) as const;

test('lines print when they end; the rest when the call ends', () => {
  const p = new LiveTextPrinter();
  expect(p.feed(delta('Let me '))).toEqual([]);
  expect(p.feed(delta('read it.\nThen'))).toEqual(['  │ Let me read it.']);
  expect(p.feed(delta(' delete it.'))).toEqual([]);
  expect(p.flush()).toEqual(['  │ Then delete it.']);
  expect(p.flush()).toEqual([]);
});

test('a long line without a newline still streams, cut at a space', () => {
  const p = new LiveTextPrinter();
  const words = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
  const lines = p.feed(delta(words));
  expect(lines).toHaveLength(1);
  expect(lines[0]!.length).toBeLessThanOrEqual(4 + 160);
  expect(lines[0]).toMatch(/^ {2}│ word0 word1 .* word\d+$/);
  const rest = p.flush();
  expect([...lines, ...rest].map((l) => l.slice(4)).join(' ')).toBe(words);
});

test('a discard says the attempt is void only when something was shown', () => {
  const p = new LiveTextPrinter();
  expect(p.feed({ type: 'discard', call: 1, attempt: 1 })).toEqual([]);
  p.feed(delta('partial'));
  expect(p.feed({ type: 'discard', call: 1, attempt: 1 })).toEqual([
    '  ↺ model call 1 is retried (attempt 2); the text above is void',
  ]);
  // The partial text of the failed attempt is gone; the retry's text follows.
  p.feed(delta('fresh', { attempt: 2 }));
  expect(p.flush()).toEqual(['  │ fresh']);
});

test('text the follower never saw is marked', () => {
  const p = new LiveTextPrinter();
  p.feed(delta('tail', { skipped: 500 }));
  expect(p.flush()).toEqual(['  │ …tail']);
});
