import fc from 'fast-check';
import {
  LIVE_TEXT_WINDOW,
  LiveTextTracker,
  modelProgress,
  type LiveTextEvent,
  type ModelActivitySnapshot,
} from '../../src/core/live-text';

/** What a subscriber shows for each call after applying the events. */
function render(events: LiveTextEvent[]): Map<number, string> {
  const shown = new Map<number, string>();
  for (const e of events) {
    if (e.type === 'discard') shown.set(e.call, '');
    else shown.set(e.call, (shown.get(e.call) ?? '') + e.text);
  }
  return shown;
}

const snap = (call: number, attempt: number, text: string, activityAttempt = attempt): ModelActivitySnapshot => ({
  attempt: activityAttempt,
  progress: modelProgress(call, attempt, text),
});

describe('LiveTextTracker', () => {
  it('sends only what is new, once', () => {
    const t = new LiveTextTracker();
    expect(t.observe(snap(1, 1, 'Hel'))).toEqual([{ type: 'delta', call: 1, attempt: 1, text: 'Hel' }]);
    expect(t.observe(snap(1, 1, 'Hel'))).toEqual([]);
    expect(t.observe(snap(1, 1, 'Hello'))).toEqual([{ type: 'delta', call: 1, attempt: 1, text: 'lo' }]);
    expect(t.complete(1, 'Hello, world')).toEqual([{ type: 'delta', call: 1, attempt: 1, text: ', world' }]);
    // A late snapshot of a completed call changes nothing.
    expect(t.observe(snap(1, 1, 'Hello, world!!'))).toEqual([]);
  });

  it('tells subscribers to discard a failed attempt, and ignores its stale heartbeat', () => {
    const t = new LiveTextTracker();
    t.observe(snap(1, 1, 'partial ans'));
    // The retry runs (attempt 2) but has not heartbeated yet: the server still shows attempt 1's details.
    expect(t.observe(snap(1, 1, 'partial ans', 2))).toEqual([{ type: 'discard', call: 1, attempt: 1 }]);
    expect(t.observe(snap(1, 1, 'partial answer', 2))).toEqual([]);
    expect(t.observe(snap(1, 2, 'Full'))).toEqual([{ type: 'delta', call: 1, attempt: 2, text: 'Full' }]);
    expect(render([...t.complete(1, 'Full answer')]).get(1)).toBe(' answer');
  });

  it('discards when the result is not what was shown (a retry it never saw)', () => {
    const t = new LiveTextTracker();
    t.observe(snap(2, 1, 'first try'));
    expect(t.complete(2, 'second')).toEqual([
      { type: 'discard', call: 2, attempt: 1 },
      { type: 'delta', call: 2, attempt: 1, text: 'second' },
    ]);
  });

  it('says how much it skipped when the heartbeat window moved past what was sent', () => {
    const t = new LiveTextTracker();
    t.observe(snap(1, 1, 'abc'));
    const long = 'x'.repeat(LIVE_TEXT_WINDOW + 100);
    const [delta] = t.observe(snap(1, 1, long));
    expect(delta).toMatchObject({ type: 'delta', skipped: 97 });
    expect((delta as { text: string }).text).toHaveLength(LIVE_TEXT_WINDOW);
    expect(t.complete(1, long + 'y')).toEqual([{ type: 'delta', call: 1, attempt: 1, text: 'y' }]);
  });

  it('starts a new call fresh and ignores older calls', () => {
    const t = new LiveTextTracker();
    t.observe(snap(1, 1, 'one'));
    expect(t.observe(snap(2, 1, 'two'))).toEqual([{ type: 'delta', call: 2, attempt: 1, text: 'two' }]);
    expect(t.complete(1, 'one more')).toEqual([]);
    expect(t.observe(undefined)).toEqual([]);
    expect(t.observe({ attempt: 1 })).toEqual([]);
  });

  it('leaves the text alone when the result does not say what it was (old histories)', () => {
    const t = new LiveTextTracker();
    t.observe(snap(1, 1, 'abc'));
    expect(t.complete(1, undefined)).toEqual([]);
  });

  it('property: whatever the polls see, the subscriber ends with exactly the call’s result', () => {
    const attemptArb = fc.record({
      text: fc.string({ maxLength: 40 }),
      // Which prefixes of the attempt's text the polls happen to see, in order.
      cuts: fc.array(fc.nat(), { maxLength: 6 }),
      stale: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(attemptArb, { minLength: 1, maxLength: 4 }), (attempts) => {
        const t = new LiveTextTracker();
        const events: LiveTextEvent[] = [];
        attempts.forEach((a, i) => {
          const attempt = i + 1;
          // Before the retry heartbeats, the server may still show the previous attempt's details.
          if (a.stale && i > 0) {
            const prev = attempts[i - 1]!.text;
            events.push(...t.observe(snap(1, attempt - 1, prev, attempt)));
          }
          const cuts = [...a.cuts].map((c) => c % (a.text.length + 1)).sort((x, y) => x - y);
          for (const c of cuts) events.push(...t.observe(snap(1, attempt, a.text.slice(0, c))));
        });
        const final = attempts[attempts.length - 1]!.text;
        events.push(...t.complete(1, final));
        expect(render(events).get(1) ?? '').toBe(final);
      }),
    );
  });
});
