/**
 * Answer gates (`defineAgent({ approveAnswer })`) against the dev server and the scripted model: the
 * final answer waits at the approval desk as the pseudo-tool `final_answer`; a denial's reason goes
 * back to the model, which revises; an approval (maybe with edited text) completes the turn.
 */
import { defineAgent } from '../../src/agents/define';
import { Ask, Deny, Proceed } from '../../src/core/policy';
import { ANSWER_TOOL } from '../../src/core/spec';
import { recordFixture } from '../support/fixtures';
import { awaitingApproval, createHarness, scriptByInput, waitForState, type Harness } from '../support/harness';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h?.close();
});

const tone = {
  name: 'tone',
  approveAnswer: ({ text }: { text: string }) =>
    text.includes('sorry') ? Proceed : text.includes('ask') ? Ask : Deny('Apologise first.'),
};
const agents = [
  defineAgent({ name: 'hooked', instructions: 'x', tools: [], hooks: [tone] }),
  defineAgent({ name: 'mailer', instructions: 'x', tools: [], approveAnswer: true }),
  defineAgent({ name: 'mailer-timed', instructions: 'x', tools: [], approveAnswer: { timeout: '1 second' } }),
];
const run = <T>(fn: () => Promise<T>) => h.withWorker(fn, { agents, tools: [] });

test('the answer waits for a human; denied with a reason, the model revises; approved, the turn completes', async () => {
  // The model's second request ends with the reviewer's reason as the user's message: routed by the original input.
  const steps = [{ content: 'Dear customer: no.' }, { content: 'Dear customer, sorry: yes.' }];
  let served = 0;
  h.model.setScript(() => steps[served++] ?? { error: { status: 400, message: 'script ended' } });
  const turnId = h.turnId('answer-gate');
  await run(async () => {
    await h.tiller.startTurn({ agent: 'mailer', input: 'reply to the customer', turnId });
    const first = await waitForState(h.tiller, turnId, awaitingApproval);
    expect(first.pendingApprovals).toEqual([
      expect.objectContaining({ id: 'answer-1', tool: ANSWER_TOOL, args: { text: 'Dear customer: no.' } }),
    ]);
    await h.tiller.deny(turnId, 'answer-1', { reason: 'Be kinder, and say yes.' });
    const second = await waitForState(
      h.tiller,
      turnId,
      (s) => awaitingApproval(s) && s.pendingApprovals[0]?.id === 'answer-2',
    );
    expect(second.pendingApprovals[0]!.args).toEqual({ text: 'Dear customer, sorry: yes.' });
    await h.tiller.approve(turnId, 'answer-2', { approver: 'reviewer' });
    const result = await h.tiller.result(turnId);
    expect(result.status).toBe('completed');
    expect(result.output).toBe('Dear customer, sorry: yes.');
    expect(result.usage.modelCalls).toBe(2);
    const state = await h.tiller.state(turnId);
    expect(state.toolCalls.map((c) => [c.id, c.name, c.status])).toEqual([
      ['answer-1', ANSWER_TOOL, 'denied'],
      ['answer-2', ANSWER_TOOL, 'succeeded'],
    ]);
    await recordFixture(h.client, turnId, 'answer-gate-denied-then-approved');
  });
  const revised = h.model.requests.at(-1)!.body.messages;
  expect(revised.slice(-2)).toEqual([
    { role: 'assistant', content: 'Dear customer: no.' },
    { role: 'user', content: 'Your answer was not approved: Be kinder, and say yes.\nRevise your answer accordingly.' },
  ]);
});

test('an approver may edit the answer; an answer nobody approves in time fails the turn', async () => {
  h.model.setScript(scriptByInput({ edit: [{ content: 'draft' }], late: [{ content: 'too late' }] }));
  const [edited, late] = [h.turnId('answer-edit'), h.turnId('answer-late')];
  await run(async () => {
    await h.tiller.startTurn({ agent: 'mailer', input: 'edit', turnId: edited });
    await waitForState(h.tiller, edited, awaitingApproval);
    await h.tiller.decide(edited, { id: 'answer-1', approved: true, args: { text: 'final, edited' } });
    expect((await h.tiller.result(edited)).output).toBe('final, edited');

    await h.tiller.startTurn({ agent: 'mailer-timed', input: 'late', turnId: late });
    const result = await h.tiller.result(late);
    expect(result.status).toBe('failed');
    expect(result.error).toMatch(/^the answer was not approved: /);
  });
});

test('an agent with an answer gate may not have a tool named final_answer', () => {
  expect(() => defineAgent({ name: 'a', instructions: 'x', tools: [ANSWER_TOOL], approveAnswer: true })).toThrow(
    'agent a: with approveAnswer, final_answer may not be one of its tools',
  );
});

test('an approveAnswer hook proceeds, denies with a reason the model reads, or asks a human', async () => {
  // Routed by the turn's input (messages[1]): after a denial the last user message is the reason.
  const routes: Record<string, { content: string }[]> = {
    hooked: [{ content: 'no.' }, { content: 'sorry, yes.' }],
    escalate: [{ content: 'please ask a person' }],
  };
  h.model.setScript(
    ({ body }) => routes[body.messages[1]?.content]?.shift() ?? { error: { status: 400, message: 'no script' } },
  );
  const [hooked, asked] = [h.turnId('answer-hook'), h.turnId('answer-ask')];
  await run(async () => {
    await h.tiller.startTurn({ agent: 'hooked', input: 'hooked', turnId: hooked });
    const result = await h.tiller.result(hooked);
    expect(result.output).toBe('sorry, yes.');
    expect(result.usage.modelCalls).toBe(2);
    const state = await h.tiller.state(hooked);
    expect(state.toolCalls.map((c) => [c.id, c.status, c.decision?.via])).toEqual([
      ['answer-1', 'denied', 'hook'],
      ['answer-2', 'succeeded', 'hook'],
    ]);

    await h.tiller.startTurn({ agent: 'hooked', input: 'escalate', turnId: asked });
    const waiting = await waitForState(h.tiller, asked, awaitingApproval);
    expect(waiting.pendingApprovals.map((p) => [p.id, p.tool])).toEqual([['answer-1', ANSWER_TOOL]]);
    await h.tiller.approve(asked, 'answer-1');
    expect((await h.tiller.result(asked)).output).toBe('please ask a person');
  });
  const revised = h.model.requests.filter((r) => r.body.messages[1]?.content === 'hooked').at(-1)!.body.messages;
  expect(revised.at(-1)).toEqual({
    role: 'user',
    content: 'Your answer was not approved: Apologise first.\nRevise your answer accordingly.',
  });
});
