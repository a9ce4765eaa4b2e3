/**
 * The context window (`defineAgent({ contextWindow })`): a session of 1,000 turns on a model whose
 * context holds 4,000 tokens (the scripted model refuses past it, like OpenAI) completes every turn,
 * its conversation trimmed — or summarised — from the provider's own count; hostile summaries (huge,
 * empty) have a defined outcome.
 */
import { defineAgent } from '../../src/agents/define';
import { SUMMARY_PREFIX } from '../../src/core/context';
import { countPromptTokens } from '../../src/testing/scripted-model/chat-completions';
import type { ScriptFn } from '../../src/testing/scripted-model';
import { recordFixture } from '../support/fixtures';
import { createHarness, type Harness } from '../support/harness';

const LIMIT = 4_000;
let h: Harness;
beforeAll(async () => {
  h = await createHarness({ contextLimit: LIMIT });
});
afterAll(async () => {
  await h.close();
});

const agents = [
  defineAgent({ name: 'trimmer', instructions: 'Be brief.', tools: [], contextWindow: { tokens: LIMIT } }),
  defineAgent({
    name: 'summariser',
    instructions: 'Be brief.',
    tools: [],
    contextWindow: { tokens: LIMIT, strategy: 'summarize' },
  }),
  defineAgent({ name: 'unbounded', instructions: 'Be brief.', tools: [] }),
];
/** Answers of ~400 characters (~100 tokens), so a turn is ~130 tokens and 30 turns fill the window. */
const chatty: ScriptFn = ({ body }) => {
  const last = body.messages.at(-1)?.content ?? '';
  if (body.messages[0]?.content?.startsWith('Summarise')) return summary(body);
  return { content: `Re "${String(last).slice(0, 40)}": ${'words '.repeat(60)}` };
};
let summary: ScriptFn = () => ({ content: 'They talked about numbers 1 to n.' });

async function session(agent: string, turns: number, id: string) {
  const sessionId = h.turnId(id);
  for (let i = 1; i <= turns; i++) {
    const { turnId } = await h.tiller.send(sessionId, `message number ${i} with some padding to take room`, { agent });
    const result = await h.tiller.result(turnId);
    if (result.status !== 'completed') throw new Error(`turn ${i} ended ${result.status}: ${result.error}`);
  }
  // The turn's result can reach us a moment before the session has taken it in: wait until it is idle,
  // and fail if it never becomes so (it used to be returned after 200 polls whatever its status: issue 34).
  const deadline = Date.now() + 30_000;
  for (;;) {
    const state = await h.tiller.sessionState(sessionId);
    if (state.status === 'idle') return { sessionId, state };
    if (Date.now() > deadline)
      throw new Error(`session ${sessionId} not idle 30 s after its last turn: ${state.status}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

test('without a context window the session fails once its conversation outgrows the model', async () => {
  h.model.setScript(chatty);
  await (
    await h.worker({ agents })
  ).runUntil(async () => {
    await expect(session('unbounded', 60, 'unbounded')).rejects.toThrow(
      /context_length_exceeded|maximum context length/,
    );
  });
});

test('1,000 turns on a 4,000-token context complete, each prompt within it (trim)', async () => {
  h.model.setScript(chatty);
  h.model.requests.length = 0;
  await (
    await h.worker({ agents })
  ).runUntil(async () => {
    const { state, sessionId } = await session('trimmer', 1_000, 'trim');
    expect(state.turns.length).toBeLessThanOrEqual(200);
    expect(state.usage.modelCalls).toBe(1_000);
    expect(state.conversationLength).toBeLessThan(80);
    // A trim drops to the low-water mark: not every turn trims, but one of the last ten did.
    const lastTen = await Promise.all(
      Array.from({ length: 10 }, (_, i) => h.tiller.state(`${sessionId}-turn-${991 + i}`)),
    );
    const trimmedAt = lastTen.findIndex((s) => s.events.some((e) => e.type === 'CONTEXT_TRIMMED'));
    expect(trimmedAt).toBeGreaterThanOrEqual(0);
    const trimmed = lastTen[trimmedAt]!.events.find((e) => e.type === 'CONTEXT_TRIMMED');
    expect(trimmed).toMatchObject({ strategy: 'trim' });
    expect(lastTen.filter((s) => s.events.some((e) => e.type === 'CONTEXT_TRIMMED')).length).toBeLessThan(10);
    await recordFixture(h.client, `${sessionId}-turn-${991 + trimmedAt}`, 'context-trimmed');
  });
  const biggest = Math.max(...h.model.requests.map((r) => countPromptTokens(r.body)));
  expect(biggest).toBeLessThanOrEqual(LIMIT);
  // The system prompt and the turn's own input are always there.
  for (const r of h.model.requests.slice(-5)) {
    expect(r.body.messages[0]).toEqual({ role: 'system', content: 'Be brief.' });
    expect(r.body.messages.at(-1).content).toMatch(/^message number \d+/);
  }
}, 900_000);

test('summarize: the oldest turns become a summary the session keeps and shows', async () => {
  h.model.setScript(chatty);
  await (
    await h.worker({ agents })
  ).runUntil(async () => {
    const { state, sessionId } = await session('summariser', 45, 'summarize');
    expect(state.summary).toBe('They talked about numbers 1 to n.');
    const next = await h.tiller.send(sessionId, 'one more', { agent: 'summariser' });
    await h.tiller.result(next.turnId);
  });
  const lastPrompt = h.model.requests.at(-1)!.body.messages;
  expect(lastPrompt[1].content.startsWith(SUMMARY_PREFIX)).toBe(true);
}, 300_000);

test('a huge summary is clipped to its budget; an empty one falls back to trimming', async () => {
  h.model.setScript(chatty);
  summary = () => ({ content: 'z'.repeat(200_000) });
  await (
    await h.worker({ agents })
  ).runUntil(async () => {
    const { state } = await session('summariser', 40, 'huge-summary');
    expect(state.summary!.length).toBeLessThanOrEqual((LIMIT / 8) * 4);
  });
  summary = () => ({ content: '   ' });
  await (
    await h.worker({ agents })
  ).runUntil(async () => {
    const { state } = await session('summariser', 40, 'empty-summary');
    expect(state.summary).toBeUndefined();
    const turns = await Promise.all(state.turns.slice(-10).map((t) => h.tiller.state(t.turnId)));
    const trims = turns.flatMap((t) => t.events.filter((e) => e.type === 'CONTEXT_TRIMMED'));
    expect(trims.length).toBeGreaterThan(0);
    expect(trims.every((e) => e.type === 'CONTEXT_TRIMMED' && e.strategy === 'trim')).toBe(true);
  });
  summary = () => ({ content: 'They talked about numbers 1 to n.' });
}, 300_000);
