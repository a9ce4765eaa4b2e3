/** The cheap reads of a turn (src/core/reads.ts): the summary and pages of events after a seq. */
import { eventsPage, MAX_EVENTS_PAGE, summaryOf } from '../../src/core/reads';
import { createTurnState, emit } from '../../src/core/state';

function turn(events: number, maxEvents = 500) {
  const state = createTurnState({ turnId: 't', agent: 'a' });
  const at = '2026-01-01T00:00:00.000Z';
  emit(state, { type: 'AGENT_STARTED', agent: 'a', input: 'go', model: 'm', tools: ['x'] }, at, maxEvents);
  for (let i = 1; i < events; i++) {
    emit(state, { type: 'TOOL_STARTED', toolCallId: `c${i}`, tool: 'x', args: {} }, at, maxEvents);
  }
  return state;
}

test('pages of events after a seq: in order, `more` until the newest, nothing twice', () => {
  const state = turn(12);
  const seen: number[] = [];
  let afterSeq = 0;
  for (;;) {
    const page = eventsPage(state, { afterSeq, limit: 5 });
    seen.push(...page.events.map((e) => e.seq));
    expect(page).toMatchObject({ status: 'running', lastSeq: 12, oldestSeq: 1 });
    if (!page.more) break;
    afterSeq = page.events.at(-1)!.seq;
  }
  expect(seen).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
  expect(eventsPage(state, { afterSeq: 12 })).toMatchObject({ events: [], more: false });
  expect(eventsPage(state, { afterSeq: 99 })).toMatchObject({ events: [], more: false });
});

test('after the ring dropped old events, a page starts at the oldest held (the gap shows in oldestSeq)', () => {
  const state = turn(30, 10);
  const page = eventsPage(state, { afterSeq: 3 });
  expect(page.oldestSeq).toBe(21);
  expect(page.events.map((e) => e.seq)).toEqual(Array.from({ length: 10 }, (_, i) => 21 + i));
  expect(eventsPage(state, { afterSeq: 25, limit: 2 }).events.map((e) => e.seq)).toEqual([26, 27]);
});

test('limits are clamped; a malformed request reads as from the start', () => {
  const state = turn(MAX_EVENTS_PAGE + 20, 2_000);
  expect(eventsPage(state, { limit: 10_000 }).events).toHaveLength(MAX_EVENTS_PAGE);
  expect(eventsPage(state, { limit: 0 }).events).toHaveLength(MAX_EVENTS_PAGE);
  expect(eventsPage(state, { afterSeq: -5, limit: 1 }).events[0]!.seq).toBe(1);
  expect(eventsPage(state, { afterSeq: 'x' as never, limit: 2 }).events.map((e) => e.seq)).toEqual([1, 2]);
  expect(eventsPage(createTurnState({ turnId: 't', agent: 'a' }), {})).toEqual({
    turnId: 't',
    status: 'running',
    events: [],
    lastSeq: 0,
    oldestSeq: 0,
    more: false,
  });
});

test('the summary counts what the state holds, without its events and tool calls', () => {
  const state = turn(4);
  const summary = summaryOf(state);
  expect(summary).toMatchObject({
    turnId: 't',
    agent: 'a',
    status: 'running',
    lastSeq: 4,
    counts: { events: 4, toolCalls: 3, toolCallsByStatus: { running: 3 }, subAgents: 0 },
    openChildren: [],
    pendingApprovals: [],
  });
  expect(summary).not.toHaveProperty('events');
  expect(summary).not.toHaveProperty('toolCalls');
});

test('a page stops before it passes the byte budget (at least one event); the summary stays under it too', () => {
  const state = turn(40);
  const all = eventsPage(state, {});
  expect(all.events).toHaveLength(40);
  const perEvent = JSON.stringify(all.events[5]).length + 1;
  const page = eventsPage(state, { afterSeq: 0 }, perEvent * 10);
  expect(page.events.length).toBeGreaterThanOrEqual(9);
  expect(page.events.length).toBeLessThanOrEqual(10);
  expect(page.more).toBe(true);
  expect(eventsPage(state, { afterSeq: 3 }, 1).events.map((e) => e.seq)).toEqual([4]);

  const waiting = turn(2);
  const big = { text: 'x'.repeat(1_900) };
  for (let i = 0; i < 50; i++) {
    waiting.pendingApprovals.push({
      id: `c${i}`,
      tool: 'x',
      args: Object.fromEntries(Array.from({ length: 90 }, (_, k) => [`k${k}`, big])),
      argsDigest: 'd',
      approvers: [],
      requestedAt: '2026-01-01T00:00:00.000Z',
    } as never);
  }
  const summary = summaryOf(waiting, 200_000);
  expect(JSON.stringify(summary).length).toBeLessThanOrEqual(200_000);
  expect(summary.pendingApprovals).toHaveLength(50);
  expect(summary.pendingApprovals[0]!.id).toBe('c0');
});
