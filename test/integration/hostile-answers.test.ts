/**
 * Hostile input against issue 16's features, on a real worker and the dev server: oversized and deeply
 * nested structured answers, hostile edits of a gated answer (huge, wrong types; update and signal), and a
 * huge `turnProgress` signal sent to a parent by any client. Each case reaches a defined outcome, keeps
 * `state` answering and under 1 MB, records what it refused bounded, and fails no workflow task.
 */
import { z } from 'zod';
import { defineAgent } from '../../src/agents/define';
import { turnProgressSignal } from '../../src/core/contract';
import { BOUNDS, jsonBytes } from '../../src/core/bounds';
import { PROGRESS_BYTES, subAgentTurnId } from '../../src/core/subagents';
import { scriptByInstructions, type ScriptFn } from '../../src/testing/scripted-model';
import { awaitingApproval, createHarness, waitForState, type Harness } from '../support/harness';
import { failedWorkflowTasks } from '../support/history';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h?.close();
});
beforeEach(() => {
  h.model.requests.length = 0;
});

const Shape = z.object({ data: z.unknown() });
const agents = [
  defineAgent({ name: 'shaper', instructions: 'shaper', tools: [], output: Shape, maxOutputRetries: 1, stream: false }),
  defineAgent({ name: 'mailer', instructions: 'mailer', tools: [], approveAnswer: true }),
  defineAgent({
    name: 'delegator',
    instructions: 'delegator',
    tools: [],
    subAgents: { helper: { agent: 'helper', description: 'Ask the helper.' } },
  }),
  defineAgent({ name: 'helper', instructions: 'helper', tools: [], approveAnswer: true }),
];
const run = <T>(fn: () => Promise<T>) => h.withWorker(fn, { agents, tools: [] });

/** `state` answers, under the budget, and no workflow task failed. */
async function healthy(turnId: string) {
  const state = await h.tiller.state(turnId);
  expect(jsonBytes(state)).toBeLessThan(BOUNDS.stateBytes);
  expect(await failedWorkflowTasks(h.client, turnId)).toEqual([]);
  return state;
}

test('a 1.5 MB structured answer is refused unrecorded and asked again; one of 300 KB is invalid, then InvalidOutput', async () => {
  const huge = JSON.stringify({ data: 'x'.repeat(1_500_000) });
  const big = JSON.stringify({ data: 'y'.repeat(300_000) });
  const served: Record<string, number> = {};
  const script: ScriptFn = ({ body }) => {
    const input = body.messages[1]?.content as string;
    const n = (served[input] = (served[input] ?? 0) + 1);
    if (input === 'huge') return n === 1 ? { content: huge } : { json: { data: 'small' } };
    return { content: big };
  };
  h.model.setScript(script);
  const [hugeTurn, bigTurn] = [h.turnId('huge-answer'), h.turnId('big-answer')];
  await run(async () => {
    await h.tiller.startTurn({ agent: 'shaper', input: 'huge', turnId: hugeTurn });
    const result = await h.tiller.result(hugeTurn);
    expect(result).toMatchObject({ status: 'completed', parsed: { data: 'small' } });
    expect(served.huge).toBe(2); // the activity's retry asked again; the 1.5 MB answer was never recorded
    const state = await healthy(hugeTurn);
    expect(state.events.filter((e) => e.type === 'MODEL_CALLED')).toHaveLength(1);
    expect(jsonBytes(state)).toBeLessThan(50_000);

    await h.tiller.startTurn({ agent: 'shaper', input: 'big', turnId: bigTurn });
    const failed = await h.tiller.result(bigTurn);
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(/InvalidOutput: .*after 2 attempts: the answer is 300011 characters of JSON/);
    const after = await healthy(bigTurn);
    const invalid = after.events.filter((e) => e.type === 'OUTPUT_INVALID');
    expect(invalid).toHaveLength(2);
    for (const e of invalid) expect(jsonBytes(e)).toBeLessThan(1_000);
    // The model's text is clipped where it is shown; the turn's state stays well under the budget.
    for (const e of after.events.filter((e) => e.type === 'MODEL_CALLED'))
      expect(jsonBytes(e)).toBeLessThan(BOUNDS.long + 2_000);
  });
}, 90_000);

test.each([20_000, 1_000])(
  'a structured answer nested %i levels deep is invalid (bounded reason), retried, then InvalidOutput',
  async (depth) => {
    const deep = `{"data":${'['.repeat(depth)}${']'.repeat(depth)}}`;
    h.model.setScript(() => ({ content: deep }));
    const turnId = h.turnId(`deep-answer-${depth}`);
    await run(async () => {
      await h.tiller.startTurn({ agent: 'shaper', input: 'deep', turnId });
      const result = await h.tiller.result(turnId);
      expect(result.status).toBe('failed');
      expect(result.error).toMatch(
        new RegExp(`^InvalidOutput: .*after 2 attempts: the answer is nested deeper than ${BOUNDS.jsonDepth} levels`),
      );
      expect(result.parsed).toBeUndefined();
      const state = await healthy(turnId);
      expect(state.parsed).toBeUndefined();
      for (const e of state.events.filter((e) => e.type === 'OUTPUT_INVALID')) expect(jsonBytes(e)).toBeLessThan(1_000);
    });
    expect(h.model.requests).toHaveLength(2);
    expect(h.model.requests[1]!.body.messages.at(-1).content).toContain(
      `nested deeper than ${BOUNDS.jsonDepth} levels`,
    );
  },
  60_000,
);

test('hostile edits of a gated answer (2 MB, wrong types) are refused on both channels, recorded bounded; a valid edit then wins', async () => {
  h.model.setScript(() => ({ content: 'Dear customer: draft.' }));
  const turnId = h.turnId('answer-edits');
  await run(async () => {
    await h.tiller.startTurn({ agent: 'mailer', input: 'draft', turnId });
    await waitForState(h.tiller, turnId, awaitingApproval);
    const twoMb = { id: 'answer-1', approved: true, args: { text: 'z'.repeat(2_000_000) } };
    await expect(h.tiller.decide(turnId, twoMb)).rejects.toThrow(
      /edited args are longer than the 65536 characters this agent accepts/,
    );
    for (const text of [42, ['a'], { nested: 'x' }, null]) {
      await expect(h.tiller.decide(turnId, { id: 'answer-1', approved: true, args: { text } })).rejects.toThrow(
        /edited args rejected: an edited answer is \{ text: string \}/,
      );
    }
    await h.tiller.signalDecision(turnId, twoMb);
    await h.tiller.signalDecision(turnId, { id: 'answer-1', approved: true, args: { text: 42 } });
    await h.tiller.signalDecision(turnId, { id: 'answer-1', approved: true, args: 'not an object' });
    // Rejected: the four wrong-type updates (refused after the validator, so recorded) and the three signals.
    const seen = await waitForState(
      h.tiller,
      turnId,
      (s) => s.events.filter((e) => e.type === 'DECISION_REJECTED').length === 7,
    );
    expect(seen.status).toBe('awaiting_approval');
    expect(seen.pendingApprovals.map((p) => p.id)).toEqual(['answer-1']);
    const rejected = seen.events.filter((e) => e.type === 'DECISION_REJECTED');
    expect(rejected.map((e) => e.via)).toEqual(['update', 'update', 'update', 'update', 'signal', 'signal', 'signal']);
    for (const e of rejected) expect(jsonBytes(e)).toBeLessThan(8_000);
    expect(rejected.map((e) => e.reason).join('\n')).toMatch(/longer than the 65536 characters/);
    expect(jsonBytes(seen)).toBeLessThan(60_000);

    await h.tiller.decide(turnId, { id: 'answer-1', approved: true, args: { text: 'Dear customer: final.' } });
    const result = await h.tiller.result(turnId);
    expect(result).toMatchObject({ status: 'completed', output: 'Dear customer: final.' });
    await healthy(turnId);
  });
}, 60_000);

test('a huge turnProgress signal from a hostile client is recorded bounded or ignored; the sub-agent still finishes', async () => {
  h.model.setScript(
    scriptByInstructions({
      delegator: [{ toolCalls: [{ id: 'h1', name: 'helper', arguments: { input: 'help' } }] }, { content: 'all done' }],
      helper: [{ content: 'helped' }],
    }),
  );
  const turnId = h.turnId('progress');
  const childId = subAgentTurnId(turnId, 'h1');
  await run(async () => {
    await h.tiller.startTurn({ agent: 'delegator', input: 'go', turnId });
    await waitForState(h.tiller, childId, awaitingApproval);
    await waitForState(h.tiller, turnId, (s) => s.children?.[childId]?.pendingApprovals.length === 1);
    const parent = h.client.workflow.getHandle(turnId);
    const entry = (i: number) => ({
      id: `fake-${i}`,
      tool: 'delete_file',
      args: { path: 'a'.repeat(6_000) },
      preview: 'p'.repeat(3_000),
      approvers: Array.from({ length: 500 }, (_, j) => `user-${j}`),
      ...Object.fromEntries(Array.from({ length: 200 }, (_, k) => [`k${k}`, 'v'])),
    });
    const hostile = [
      // Fits the schema (100 entries), ~1.9 MB of payload: recorded, but bounded.
      {
        turnId: childId,
        status: 'awaiting_approval',
        pendingApprovals: Array.from({ length: 100 }, (_, i) => entry(i)),
      },
      // Does not fit: ignored.
      {
        turnId: childId,
        status: 'awaiting_approval',
        pendingApprovals: Array.from({ length: 101 }, (_, i) => entry(i)),
      },
      { turnId: 'x'.repeat(1_000_000), status: 'running', pendingApprovals: [] },
      { turnId: childId, status: 'nonsense', pendingApprovals: [] },
    ];
    for (const p of hostile) await parent.signal(turnProgressSignal, p as never);
    const seen = await waitForState(h.tiller, turnId, (s) => s.children?.[childId]?.pendingApprovals.length === 100);
    expect(seen.events.filter((e) => e.type === 'SUBAGENT_PROGRESS')).toHaveLength(2);
    const recorded = seen.events.filter((e) => e.type === 'SUBAGENT_PROGRESS').at(-1)!;
    expect(jsonBytes(recorded)).toBeLessThan(PROGRESS_BYTES + 1_000);
    expect(jsonBytes(seen)).toBeLessThan(BOUNDS.stateBytes);

    // The child's real answer is still decided on the child, and the parent completes.
    await h.tiller.approve(childId, 'answer-1');
    const result = await h.tiller.result(turnId);
    expect(result).toMatchObject({ status: 'completed', output: 'all done' });
    const state = await healthy(turnId);
    expect(state.children?.[childId]).toMatchObject({ status: 'completed', pendingApprovals: [] });
  });
}, 60_000);
