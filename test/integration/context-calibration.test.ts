/**
 * The context window's calibration from outside — a turn's `contextCalibration`, a session started with
 * `carried` state — is bounded: one of the wrong type is refused with the turn's input, one no provider
 * could have counted (a ratio of tokens to characters that would stop all trimming, or make every prompt
 * look full) is not used, so the window still holds on a model whose context is 4,000 tokens.
 */
import { WorkflowFailedError } from '@temporalio/client';
import { defineAgent } from '../../src/agents/define';
import { WORKFLOW_TYPE_SESSION, WORKFLOW_TYPE_TURN } from '../../src/core/contract';
import { emptyUsage, type ConversationMessage } from '../../src/core/schemas';
import { recordFixture } from '../support/fixtures';
import { createHarness, type Harness } from '../support/harness';

const LIMIT = 4_000;
let h: Harness;
beforeAll(async () => {
  h = await createHarness({ contextLimit: LIMIT, script: () => ({ content: 'ok' }) });
});
afterAll(async () => {
  await h.close();
});

const agents = [
  defineAgent({ name: 'trimmer', instructions: 'Be brief.', tools: [], contextWindow: { tokens: LIMIT } }),
];
/** 60 messages of ~400 characters: ~6,000 tokens, more than the window. */
const history: ConversationMessage[] = Array.from({ length: 60 }, (_, i) => ({
  role: i % 2 === 0 ? 'user' : 'assistant',
  content: `message ${i}: ${'words '.repeat(65)}`,
}));
/** Would stop all trimming (a prompt of any size "is" one token), or make any prompt look full. */
const tooFew = { tokens: 1, chars: 1e15 };
const tooMany = { tokens: 1e15, chars: 1 };

async function turn(args: Record<string, unknown>) {
  const turnId = h.turnId('calibrated');
  const handle = await h.client.workflow.start(WORKFLOW_TYPE_TURN, {
    taskQueue: h.taskQueue,
    workflowId: turnId,
    args: [{ agent: 'trimmer', input: 'and now?', turnId, ...args }],
  });
  const error = await handle.result().then(
    () => undefined,
    (e: unknown) => (e instanceof WorkflowFailedError ? (e.cause as { type?: string; message: string }) : e),
  );
  // A turn refused its input registered no query: its state is only read when it ran.
  return { turnId, error, state: error === undefined ? await h.tiller.state(turnId) : undefined };
}

test('a calibration no provider could have counted is not used: the window still trims, or keeps', async () => {
  await (
    await h.worker({ agents })
  ).runUntil(async () => {
    const few = await turn({ history, contextCalibration: tooFew });
    expect(few.error).toBeUndefined();
    expect(few.state!.events.find((e) => e.type === 'CONTEXT_TRIMMED')).toMatchObject({ strategy: 'trim' });
    await recordFixture(h.client, few.turnId, 'context-calibration-ignored');
    const many = await turn({ history: history.slice(0, 4), contextCalibration: tooMany });
    expect(many.state!.status).toBe('completed');
    expect(many.state!.events.some((e) => e.type === 'CONTEXT_TRIMMED')).toBe(false);
  });
  // Every prompt the model got fit its context (it refuses past it), the short history whole.
  expect(h.model.requests.at(-1)!.body.messages).toHaveLength(6);
});

test('a calibration of the wrong type is refused with the turn input', async () => {
  await (
    await h.worker({ agents })
  ).runUntil(async () => {
    const bad = await turn({ contextCalibration: { tokens: -1, chars: 'many' } });
    expect(bad.error).toMatchObject({ type: 'InvalidTurnInput', message: expect.stringMatching(/contextCalibration/) });
  });
});

test.each([
  ['implausible', tooFew],
  ['of the wrong type', { tokens: 'x', chars: -5 }],
  ['not an object', 'lots'],
])('a session carried in with a calibration %s still keeps its window', async (_label, calibration) => {
  const sessionId = h.turnId('carried');
  const carried = {
    conversation: history,
    trust: [],
    usage: emptyUsage(),
    turns: [],
    turnSeq: 0,
    runs: 0,
    calibration,
  };
  await (
    await h.worker({ agents })
  ).runUntil(async () => {
    await h.client.workflow.start(WORKFLOW_TYPE_SESSION, {
      taskQueue: h.taskQueue,
      workflowId: sessionId,
      args: [{ agent: 'trimmer', carried }],
    });
    const { turnId } = await h.tiller.send(sessionId, 'and now?', { agent: 'trimmer' });
    const result = await h.tiller.result(turnId);
    expect(result).toMatchObject({ status: 'completed', context: { dropped: expect.any(Number) } });
    expect(result.context!.dropped).toBeGreaterThan(0);
    await h.client.workflow.getHandle(sessionId).terminate('test over');
  });
});
