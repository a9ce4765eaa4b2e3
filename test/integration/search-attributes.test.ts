/**
 * `createWorker` on a namespace without Tiller's search attributes (a user who skipped `tiller setup`):
 * it registers them where the server allows it, and refuses to start — naming the command to run —
 * where it does not. Before, the worker started and every turn's workflow task failed with
 * `BadSearchAttributes`, retried forever. Each test uses a namespace of its own on the run's dev server.
 */
import { randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import { TillerClient } from '../../src/client';
import { defineAgent } from '../../src/agents/define';
import { SEARCH_ATTRIBUTES, TillerStatus } from '../../src/core/contract';
import { SearchAttributesMissing, SearchAttributesMissingError } from '../../src/worker/search-attributes';
import { createHarness, scriptByInput, type Harness } from '../support/harness';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h?.close();
});

const agents = [defineAgent({ name: 'plain', instructions: 'x', tools: [] })];
const KEYWORD_LIST = temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD_LIST;

/** A fresh namespace on the dev server, once the server serves it (polled, as the server's cache catches up). */
async function freshNamespace(label: string): Promise<string> {
  const namespace = `${label}-${randomUUID().slice(0, 8)}`;
  const { workflowService, operatorService } = h.client.connection;
  await workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      await operatorService.listSearchAttributes({ namespace });
      return namespace;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

async function customAttributes(namespace: string): Promise<string[]> {
  const listed = await h.client.connection.operatorService.listSearchAttributes({ namespace });
  return Object.keys(listed.customAttributes ?? {});
}

/** Runs one turn on `namespace` with a worker from `createWorker`; returns its result and search attributes. */
async function runTurn(namespace: string, searchAttributes?: boolean) {
  const tiller = new TillerClient(new Client({ connection: h.client.connection, namespace }), h.taskQueue);
  const input = `hello ${namespace}`;
  h.model.setScript(scriptByInput({ [input]: [{ content: 'hi' }] }));
  const worker = await h.worker({ agents, namespace, ...(searchAttributes !== undefined && { searchAttributes }) });
  const turnId = h.turnId('sa');
  return worker.runUntil(async () => {
    await tiller.startTurn({ agent: 'plain', input, turnId });
    const result = await tiller.result(turnId);
    const described = await tiller.handle(turnId).describe();
    return {
      result,
      status: described.typedSearchAttributes.get(TillerStatus),
      startsWithAttributes: tiller.startSearchAttributes,
    };
  });
}

test('on a namespace without them, createWorker registers the search attributes and turns complete', async () => {
  const namespace = await freshNamespace('tiller-sa-register');
  expect(await customAttributes(namespace)).toEqual([]);

  const { result, status, startsWithAttributes } = await runTurn(namespace);

  expect(result.status).toBe('completed');
  expect(result.output).toBe('hi');
  expect(status).toBe('completed');
  expect(startsWithAttributes).toBe(true);
  expect((await customAttributes(namespace)).sort()).toEqual(Object.keys(SEARCH_ATTRIBUTES).sort());
});

test('where the server refuses to register them, createWorker refuses to start and names `tiller setup`', async () => {
  const namespace = await freshNamespace('tiller-sa-refused');
  // The dev server's SQL visibility has 3 KeywordList slots per namespace: filled, TillerPendingTools cannot be added.
  await h.client.connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: { FillerA: KEYWORD_LIST, FillerB: KEYWORD_LIST, FillerC: KEYWORD_LIST },
  });

  const refused = await h.worker({ agents, namespace }).then(
    () => undefined,
    (err: unknown) => err,
  );

  expect(refused).toBeInstanceOf(SearchAttributesMissingError);
  // The old name, kept as a deprecated alias for one minor version (issue 38).
  expect(refused).toBeInstanceOf(SearchAttributesMissing);
  const message = (refused as Error).message;
  expect(message).toContain(`namespace ${namespace} lacks Tiller's search attributes`);
  expect(message).toContain('TillerPendingTools');
  expect(message).toContain(`TEMPORAL_NAMESPACE=${namespace} npx tiller setup`);
  expect(message).toContain('searchAttributes: false');
  expect(await customAttributes(namespace)).not.toContain('TillerPendingTools');

  // Told to run without them, the same worker starts, and its turns complete (no search attributes set).
  // The client's start with them was refused: it started the turn without, and starts the next so.
  const { result, status, startsWithAttributes } = await runTurn(namespace, false);
  expect(result.status).toBe('completed');
  expect(status).toBeUndefined();
  expect(startsWithAttributes).toBe(false);

  // A session too: its start with TillerSession is refused, and it starts without.
  const tiller = new TillerClient(new Client({ connection: h.client.connection, namespace }), h.taskQueue);
  h.model.setScript(scriptByInput({ [`session ${namespace}`]: [{ content: 'in session' }] }));
  const worker = await h.worker({ agents, namespace, searchAttributes: false });
  const sessionId = h.turnId('sa-session');
  const ended = await worker.runUntil(async () => {
    const { turnId } = await tiller.send(sessionId, `session ${namespace}`, { agent: 'plain' });
    return tiller.result(turnId);
  });
  expect(ended).toMatchObject({ status: 'completed', output: 'in session' });
  expect(tiller.startSearchAttributes).toBe(false);
});

test('a turn started with its search attributes keeps them true on a worker told to run without them', async () => {
  // The default namespace has them; this worker was told not to use them. The client started the turn
  // as running: the turn must not leave it so once it completes.
  h.model.setScript(scriptByInput({ 'hello default': [{ content: 'hi' }] }));
  const worker = await h.worker({ agents, searchAttributes: false });
  const turnId = h.turnId('sa-kept');
  const status = await worker.runUntil(async () => {
    await h.tiller.startTurn({ agent: 'plain', input: 'hello default', turnId });
    expect(await h.tiller.result(turnId)).toMatchObject({ status: 'completed' });
    return (await h.tiller.handle(turnId).describe()).typedSearchAttributes.get(TillerStatus);
  });
  expect(status).toBe('completed');
});
