/**
 * A context window that cannot get stuck (issue 35), on the scripted model refusing prompts past 3,000
 * tokens as llama-server does (400 `exceed_context_size_error` with its counts): a prompt the server
 * refuses is trimmed to the server's count and asked once more; with no `maxTokens` the window keeps a
 * quarter for the answer, and a trim drops to a low-water mark, so the next few prompts begin the same;
 * an answer cut because the prompt filled the context fails as `ContextExhausted` with both counts and
 * advice that fits (never "raise maxTokens").
 */
import { WorkflowFailedError } from '@temporalio/client';
import { defineAgent } from '../../src/agents/define';
import type { TurnEvent } from '../../src/core/state/events';
import { countPromptTokens } from '../../src/testing/scripted-model/chat-completions';
import type { ScriptFn } from '../../src/testing/scripted-model';
import { recordFixture } from '../support/fixtures';
import { createHarness, type Harness } from '../support/harness';

const LIMIT = 3_000;
let h: Harness;
beforeAll(async () => {
  h = await createHarness({ contextLimit: LIMIT, contextRefusal: 'llama' });
});
afterAll(async () => {
  await h.close();
});
beforeEach(() => {
  h.model.requests.length = 0;
});

const agents = [
  // Twice the server's context: only the server's refusals can keep it going.
  defineAgent({ name: 'oversized', instructions: 'Be brief.', tools: [], contextWindow: { tokens: 2 * LIMIT } }),
  // The form docs/sessions.md shows: a window, no maxTokens.
  defineAgent({ name: 'windowed', instructions: 'Be brief.', tools: [], contextWindow: { tokens: LIMIT } }),
  defineAgent({ name: 'cut', api: 'responses', instructions: 'x', tools: [], modelSettings: { maxTokens: 64 } }),
];
/** Answers of ~400 characters (~100 tokens): a turn is ~130 tokens. */
const chatty: ScriptFn = ({ body }) => {
  const last = body.messages.at(-1)?.content ?? '';
  return { content: `Re "${String(last).slice(0, 40)}": ${'words '.repeat(60)}` };
};

async function session(agent: string, turns: number, id: string) {
  const sessionId = h.turnId(id);
  const turnIds: string[] = [];
  for (let i = 1; i <= turns; i++) {
    const { turnId } = await h.tiller.send(sessionId, `message number ${i} with some padding to take room`, { agent });
    const result = await h.tiller.result(turnId);
    if (result.status !== 'completed') throw new Error(`turn ${i} ended ${result.status}: ${result.error}`);
    turnIds.push(turnId);
  }
  return { sessionId, turnIds };
}

const trims = (events: TurnEvent[]) => events.filter((e) => e.type === 'CONTEXT_TRIMMED');

test('a prompt the server refuses as too long is trimmed to its count and asked once more, recorded', async () => {
  h.model.setScript(chatty);
  await (
    await h.worker({ agents })
  ).runUntil(async () => {
    const { turnIds } = await session('oversized', 30, 'refused');
    const states = await Promise.all(turnIds.map((t) => h.tiller.state(t)));
    const refusedAt = states.findIndex((s) => trims(s.events).some((e) => e.type === 'CONTEXT_TRIMMED' && e.refused));
    expect(refusedAt).toBeGreaterThan(0);
    const refused = trims(states[refusedAt]!.events)[0]!;
    expect(refused).toMatchObject({ strategy: 'trim', refused: { promptTokens: expect.any(Number) } });
    if (refused.type === 'CONTEXT_TRIMMED') expect(refused.refused!.promptTokens).toBeGreaterThan(LIMIT);
    // One model call recorded: the refused request is not a call the model answered.
    expect(states[refusedAt]!.events.filter((e) => e.type === 'MODEL_CALLED')).toHaveLength(1);
    await recordFixture(h.client, turnIds[refusedAt]!, 'context-refused-in-call');
  });
  const sizes = h.model.requests.map((r) => countPromptTokens(r.body));
  const refusals = sizes.filter((n) => n > LIMIT).length;
  expect(refusals).toBeGreaterThan(0);
  // Each refusal was followed by one request that fit.
  sizes.forEach((n, i) => {
    if (n > LIMIT) expect(sizes[i + 1]).toBeLessThanOrEqual(LIMIT);
  });
}, 300_000);

test('with no maxTokens the window keeps a quarter for the answer, and a trim drops to the low-water mark', async () => {
  h.model.setScript(chatty);
  await (
    await h.worker({ agents })
  ).runUntil(async () => {
    const { turnIds } = await session('windowed', 40, 'low-water');
    const states = await Promise.all(turnIds.map((t) => h.tiller.state(t)));
    const trimmed = states.filter((s) => trims(s.events).length > 0);
    // The window filled (~23 turns), then a trim every several turns, not every turn.
    expect(trimmed.length).toBeGreaterThan(0);
    expect(trimmed.length).toBeLessThanOrEqual(6);
    await recordFixture(h.client, turnIds[states.indexOf(trimmed[0]!)]!, 'context-low-water');
  });
  const sizes = h.model.requests.map((r) => countPromptTokens(r.body));
  expect(Math.max(...sizes)).toBeLessThanOrEqual(LIMIT * 0.75);
  // The prompt's beginning (what the server caches) stays the same from one turn to the next, but at a trim.
  const firstTurn = h.model.requests.map((r) => JSON.stringify(r.body.messages[1]));
  const same = firstTurn.slice(1).filter((m, i) => m === firstTurn[i]).length;
  expect(same / (firstTurn.length - 1)).toBeGreaterThanOrEqual(0.8);
}, 300_000);

test('an answer cut short of maxTokens because the prompt filled the context fails as ContextExhausted, with both counts', async () => {
  h.model.setScript([
    { content: 'H', incomplete: 'max_output_tokens', usage: { prompt_tokens: 2047, completion_tokens: 1 } },
  ]);
  const turnId = h.turnId('cut');
  const failure = await (
    await h.worker({ agents })
  ).runUntil(async () => {
    await h.tiller.startTurn({ agent: 'cut', input: 'go', turnId });
    return h.client.workflow
      .getHandle(turnId)
      .result()
      .then(
        () => undefined,
        (e: unknown) => (e instanceof WorkflowFailedError ? e.cause : e),
      );
  });
  expect(failure).toMatchObject({ type: 'ContextExhausted' });
  const message = (failure as Error).message;
  expect(message).toMatch(/a prompt of 2047 tokens and an answer cut at 1 \(short of maxTokens 64\)/);
  expect(message).not.toMatch(/raise .*maxTokens/);
  await recordFixture(h.client, turnId, 'context-exhausted');
}, 60_000);
