/**
 * With the encryption codec on (TILLER_ENCRYPTION_KEYS, as `tiller worker` and the clients read it), no
 * user-supplied string is plaintext in a turn's raw history: the prompt, tool arguments and results, the
 * model's answer, the approver, a deny reason, a refused decision's reason, a tool's error, a tripped
 * guardrail's failure, summaries and details. Failures' messages are in their encoded attributes (the
 * failure converter of src/codec/failures.ts, in the workflow bundle too). What stays plaintext by design
 * is SECURITY.md's list, allowed here exactly: the verified approver header, workflow and update ids
 * chosen by the caller, and search attributes.
 */
import { randomBytes } from 'node:crypto';
import { Client } from '@temporalio/client';
import { bundleWorkflowCode } from '@temporalio/worker';
import type { temporal } from '@temporalio/proto';
import { z } from 'zod';
import { createHarness, waitForState, awaitingApproval, type Harness } from '../support/harness';
import { TillerClient, DecisionRejectedError } from '../../src/client';
import { decideHeadersInterceptor } from '../../src/client/caller';
import { dataConverterFromEnv } from '../../src/codec/encryption';
import { buildCodecServer } from '../../src/codec/server';
import { bundleEncodesFailures, ENCODED_FAILURES_PATH } from '../../src/codec/encoded-failures';
import { defineAgent } from '../../src/agents/define';
import { replayTurns } from '../../src/worker/replay';
import { defineTool } from '../../src/tools/define';
import { PRELOAD_MODULES, workflowsPath } from '../../src/worker/plugin';

const hex = () => randomBytes(5).toString('hex');
/** Every user-supplied string the turns below carry; none may be plaintext in history. */
const C = {
  prompt: `prompt-${hex()}`,
  args: `args-${hex()}`,
  toolResult: `result-${hex()}`,
  toolError: `toolerror-${hex()}`,
  answer: `answer-${hex()}`,
  approver: `approver-${hex()}`,
  stranger: `stranger-${hex()}`,
  denyReason: `denyreason-${hex()}`,
  starter: `starter-${hex()}`,
  guardrailError: `guardrail-${hex()}`,
};
const TOOL = `vault_${hex()}`;
const env = { TILLER_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}` };

const vault = defineTool({
  name: TOOL,
  description: 'x',
  input: z.object({ note: z.string() }),
  execute: () => C.toolResult,
});
const boom = defineTool({
  name: 'boom',
  description: 'x',
  input: z.object({}),
  execute: () => {
    throw new Error(`the tool failed: ${C.toolError}`);
  },
});
const agent = defineAgent({
  name: 'sealed',
  instructions: 'x',
  tools: [TOOL, 'boom'],
  approvals: { [TOOL]: { approvers: [C.approver] } },
});
const guarded = defineAgent({
  name: 'sealed-guarded',
  instructions: 'x',
  tools: [],
  inputGuardrails: [
    {
      name: 'sealed-check',
      run: () => {
        throw new Error(`the check broke: ${C.guardrailError}`);
      },
    },
  ],
});

let h: Harness;
let encryptedBundle: string;
beforeAll(async () => {
  h = await createHarness();
  ({ code: encryptedBundle } = await bundleWorkflowCode({
    workflowsPath,
    preloadModules: [...PRELOAD_MODULES],
    failureConverterPath: ENCODED_FAILURES_PATH,
    logger: {
      log: () => undefined,
      trace: () => undefined,
      debug: () => undefined,
      info: () => undefined,
      warn: () => undefined,
      error: console.error,
    },
  }));
});
afterAll(async () => {
  await h.close();
});

type Event = temporal.api.history.v1.IHistoryEvent;

/** Every string and byte array in `value`, as text (bytes as latin1 and base64), for scanning. */
function texts(value: unknown, out: string[] = []): string[] {
  if (value instanceof Uint8Array)
    out.push(Buffer.from(value).toString('latin1'), Buffer.from(value).toString('base64'));
  else if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) value.forEach((v) => texts(v, out));
  else if (value && typeof value === 'object') Object.values(value).forEach((v) => texts(v, out));
  return out;
}

/** The plaintext-by-design fields (SECURITY.md), taken out of an event before the scan. */
function withoutAllowed(event: Event): { event: Event; headers: string[] } {
  const copy = structuredClone(event) as Event & Record<string, { header?: unknown; request?: unknown }>;
  const headers: string[] = [];
  const update = copy.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest;
  if (update?.input?.header) {
    headers.push(...texts(update.input.header));
    delete update.input.header;
  }
  // Search attributes: TillerStatus, TillerAgent, TillerPendingTools (tool names), TillerSession.
  delete copy.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes;
  delete copy.workflowExecutionStartedEventAttributes?.searchAttributes;
  const signal = copy.workflowExecutionSignaledEventAttributes;
  if (signal?.header) {
    headers.push(...texts(signal.header));
    delete signal.header;
  }
  return { event: copy, headers };
}

async function rawHistory(turnId: string): Promise<Event[]> {
  const raw = new Client({ connection: h.client.connection }); // no codec: what the server stores
  return (await raw.workflow.getHandle(turnId).fetchHistory()).events ?? [];
}

test('an encrypting worker refuses a prebuilt bundle without the encoding failure converter', async () => {
  expect(bundleEncodesFailures({ code: encryptedBundle })).toBe(true);
  await expect(h.worker({ dataConverter: dataConverterFromEnv(env, { requireEncryption: true }) })).rejects.toThrow(
    /built without the encoding failure converter/,
  );
});

test('no user-supplied string is plaintext in the raw history; the codec client reads every one back', async () => {
  const dataConverter = dataConverterFromEnv(env)!;
  const client = new Client({ connection: h.client.connection, dataConverter });
  const tiller = new TillerClient(client, h.taskQueue);
  // Decides as the token's subject would on the secured cluster: the approver in the header.
  const verified = new TillerClient(
    new Client({
      connection: h.client.connection,
      dataConverter,
      interceptors: { workflow: [decideHeadersInterceptor({ subject: C.approver, groups: [] })] },
    }),
    h.taskQueue,
  );
  h.model.setScript([
    {
      toolCalls: [
        { id: 'c1', name: TOOL, arguments: { note: C.args } },
        { id: 'c2', name: TOOL, arguments: { note: `${C.args}-2` } },
        { id: 'c3', name: 'boom', arguments: {} },
      ],
    },
    { content: C.answer },
  ]);
  const turnId = h.turnId('sealed');
  const failedId = h.turnId('sealed-guarded');
  const updateId = `update-${hex()}`;
  const worker = await h.worker({
    agents: [agent, guarded],
    tools: [vault, boom],
    dataConverter: dataConverterFromEnv(env, { requireEncryption: true }),
    workflowBundle: { code: encryptedBundle },
  });
  await worker.runUntil(async () => {
    await tiller.startTurn({ agent: 'sealed', input: C.prompt, turnId, startedBy: C.starter });
    await waitForState(tiller, turnId, (s) => awaitingApproval(s) && s.pendingApprovals.length === 2);
    // Refused in the handler (not on the approver list): the refusal is an update outcome in history.
    const refused = await tiller.approve(turnId, 'c1', { approver: C.stranger }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(DecisionRejectedError);
    expect((refused as Error).message).toContain(C.stranger); // decoded by the codec client
    // A client without the key cannot read the refusal, and is told why.
    const keyless = new TillerClient(new Client({ connection: h.client.connection }), h.taskQueue);
    await expect(keyless.approve(turnId, 'c1')).rejects.toThrow(/encrypted and this client has no key/);
    await verified.decide(turnId, { id: 'c1', approved: true }, updateId);
    await verified.deny(turnId, 'c2', { reason: C.denyReason });
    const result = await tiller.result(turnId);
    expect(result.output).toBe(C.answer);
    expect(result.toolCalls.map((c) => c.result ?? c.error)).toEqual(
      expect.arrayContaining([C.toolResult, expect.stringContaining(C.toolError)]),
    );

    await tiller.startTurn({ agent: 'sealed-guarded', input: `${C.prompt}-2`, turnId: failedId });
    const failed = await tiller.result(failedId).catch((e: unknown) => e);
    expect(JSON.stringify(failed instanceof Error ? { m: failed.message, c: String(failed.cause) } : failed)).toContain(
      C.guardrailError,
    );
  });

  // Histories with encoded failures replay, against bundles with and without the converter.
  for (const code of [{ code: encryptedBundle }, { codePath: process.env.TILLER_TEST_BUNDLE! }]) {
    const outcomes = await replayTurns({
      client,
      workflowIds: [turnId, failedId],
      workflowBundle: code,
      dataConverter,
    });
    expect(outcomes.map((o) => o.verdict)).toEqual(['ok', 'ok']);
  }

  const events = [...(await rawHistory(turnId)), ...(await rawHistory(failedId))];
  const scanned: string[] = [];
  const headers: string[] = [];
  for (const e of events) {
    const kept = withoutAllowed(e);
    texts(kept.event, scanned);
    headers.push(...kept.headers);
  }
  const joined = scanned.join('\n');
  const leaked = Object.entries({ ...C, tool: TOOL }).filter(([, canary]) => joined.includes(canary));
  expect(leaked.map(([what]) => what)).toEqual([]);
  // The failures are there, encoded: the refusal, the tool's error, the guardrail's and the turn's.
  expect(joined).toContain('Encoded failure');
  // Allowed by design: the approver's name in the verified approver header (SECURITY.md), and the ids.
  expect(headers.join('\n')).toContain(C.approver);
  expect(headers.join('\n')).not.toContain(C.denyReason);
  expect(joined).toContain(updateId);
  expect(texts(events.map((e) => e.upsertWorkflowSearchAttributesEventAttributes)).join('\n')).toContain(TOOL);

  // The codec server (the UI's and CLI's --codec-endpoint) decodes a failure's encoded attributes.
  const refusal = events.find((e) =>
    texts(e.workflowExecutionUpdateCompletedEventAttributes?.outcome?.failure).includes('Encoded failure'),
  )!.workflowExecutionUpdateCompletedEventAttributes!.outcome!.failure!.encodedAttributes!;
  const app = await buildCodecServer({ codec: dataConverter.payloadCodecs![0]!, token: 't' });
  try {
    const res = await app.inject({
      method: 'POST',
      url: '/codec/decode',
      headers: { authorization: 'Bearer t' },
      payload: {
        payloads: [
          {
            metadata: Object.fromEntries(
              Object.entries(refusal.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v!).toString('base64')]),
            ),
            data: Buffer.from(refusal.data!).toString('base64'),
          },
        ],
      },
    });
    const decoded = Buffer.from(res.json<{ payloads: { data: string }[] }>().payloads[0]!.data, 'base64').toString();
    expect(JSON.parse(decoded)).toMatchObject({ message: expect.stringContaining(C.stranger) });
  } finally {
    await app.close();
  }
});
