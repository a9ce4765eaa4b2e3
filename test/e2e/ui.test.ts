/**
 * The Temporal UI as the approval inbox, proven in a real browser: a second dev server with its web
 * UI, an in-process worker with the scripted demo model, one turn that completed and one that waits
 * for approval. Headless Chromium (Debian's package, see test/support/browser.ts) filters the
 * workflow list with `TillerStatus="awaiting_approval"`, finds only the waiting turn, opens it and
 * reads its current details (what waits, and the commands to decide it), then runs the `state` query.
 * Then a decision sent through the UI server's signal route, as its "Send a Signal" form sends it,
 * denies the turn, and `tiller audit` names the UI as the channel.
 *
 * Screenshots land in test-artifacts/ui/. The workflow page one is also the picture in docs/deciding.md,
 * docs/ui-inbox.png: written when missing, or refreshed with TILLER_UPDATE_SCREENSHOTS=1 (so a test
 * run does not rewrite a tracked file).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import OpenAI from 'openai';
import type { Page } from 'playwright-core';
import { auditTrail } from '../../src/audit';
import { TillerClient } from '../../src/client';
import { freePort, startDevServer, type DevServer } from '../../src/testing/dev-server';
import { demoScript, startScriptedModel, type ScriptedModel } from '../../src/testing/scripted-model';
import { fileTools } from '../../src/tools/files';
import { createWorker } from '../../src/worker/create-worker';
import { launchChromium, type HeadlessBrowser } from '../support/browser';
import { awaitingApproval, bundle, quietRuntime, waitForState } from '../support/harness';
import { ROOT } from '../support/processes';

const ARTIFACTS = path.join(ROOT, 'test-artifacts', 'ui');
const DOCS_SCREENSHOT = path.join(ROOT, 'docs', 'ui-inbox.png');
const taskQueue = 'tiller-ui-test';
const suffix = Math.random().toString(36).slice(2, 8);
const waitingId = `ui-waiting-${suffix}`;
const completedId = `ui-completed-${suffix}`;

let server: DevServer | undefined;
let model: ScriptedModel | undefined;
let native: NativeConnection | undefined;
let connection: Connection | undefined;
let worker: Worker | undefined;
let running: Promise<void> | undefined;
let browser: HeadlessBrowser | undefined;
let workspace: string | undefined;
let tiller: TillerClient;
let uiUrl: string;

/** Polls `probe` until it returns true (visibility is eventually consistent); throws after the deadline. */
async function eventually(what: string, probe: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function listed(query: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const wf of tiller.temporal.workflow.list({ query })) ids.push(wf.workflowId);
  return ids;
}

async function screenshot(page: Page, name: string): Promise<string> {
  const file = path.join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file });
  return file;
}

beforeAll(async () => {
  quietRuntime();
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  // Launch the browser first: without Chromium this suite fails at once, with the command to install it.
  browser = await launchChromium({ viewport: { width: 1400, height: 1000 } });

  server = await startDevServer({ cli: process.env.TILLER_TEST_TEMPORAL_CLI!, uiPort: await freePort() });
  uiUrl = server.uiUrl!;
  model = await startScriptedModel({ script: demoScript() });
  workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'tiller-ui-ws-'));
  fs.writeFileSync(path.join(workspace, 'notes.txt'), 'buy milk\n');
  fs.writeFileSync(path.join(workspace, 'done.txt'), 'already handled\n');

  native = await NativeConnection.connect({ address: server.address });
  connection = await Connection.connect({ address: server.address });
  tiller = new TillerClient(new Client({ connection }), taskQueue);
  const dir = workspace;
  const { readFile, deleteFile } = fileTools(() => dir);
  worker = await createWorker({
    connection: native,
    taskQueue,
    openai: new OpenAI({ baseURL: model.url, apiKey: 'test', maxRetries: 0 }),
    model: 'scripted',
    tools: [readFile, deleteFile],
    workflowBundle: bundle(),
  });
  running = worker.run();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  if (worker && worker.getState() === 'RUNNING') worker.shutdown();
  await running;
  await connection?.close();
  await native?.close();
  await model?.close();
  await server?.stop();
  if (workspace) fs.rmSync(workspace, { recursive: true, force: true });
}, 60_000);

test('a person finds the waiting turn in the Temporal UI and reads what it waits for', async () => {
  // A turn that already completed (approved from code) must not show in the inbox.
  await tiller.startTurn({ agent: 'assistant', input: 'Read done.txt, then delete it.', turnId: completedId });
  const first = await waitForState(tiller, completedId, awaitingApproval);
  await tiller.approve(completedId, first.pendingApprovals[0]!.id, { approver: 'ui-test' });
  expect((await tiller.result(completedId)).status).toBe('completed');

  // The turn the person is looking for.
  await tiller.startTurn({ agent: 'assistant', input: 'Read notes.txt, then delete it.', turnId: waitingId });
  const paused = await waitForState(tiller, waitingId, awaitingApproval);
  const call = paused.pendingApprovals[0]!;
  expect(call.tool).toBe('delete_file');

  // Visibility is eventually consistent: wait until both turns are indexed with their final status.
  await eventually('visibility lists the waiting turn', async () =>
    (await tiller.pending()).some((p) => p.turnId === waitingId),
  );
  await eventually('visibility indexes the completed turn as completed', async () =>
    (await listed(`WorkflowId = '${completedId}' AND TillerStatus = 'completed'`)).includes(completedId),
  );

  const page = await browser!.context.newPage();
  page.setDefaultTimeout(30_000);

  // Control: unfiltered, the list shows both turns (so the filtered absence below means something).
  await page.goto(`${uiUrl}/namespaces/default/workflows`);
  await page.getByRole('link', { name: completedId, exact: true }).waitFor();
  await page.getByRole('link', { name: waitingId, exact: true }).waitFor();

  // The inbox: the list filtered by the visibility query.
  const query = 'TillerStatus="awaiting_approval"';
  await page.goto(`${uiUrl}/namespaces/default/workflows?query=${encodeURIComponent(query)}`);
  const waitingLink = page.getByRole('link', { name: waitingId, exact: true });
  await waitingLink.waitFor();
  await page.getByText('1 Workflow', { exact: true }).waitFor();
  expect(await page.getByRole('link', { name: completedId, exact: true }).count()).toBe(0);
  await screenshot(page, 'inbox-list');

  // Open the turn; its current details are on the User Metadata tab, rendered as markdown in an iframe.
  await waitingLink.click();
  await page.waitForURL(new RegExp(`/workflows/${waitingId}/`));
  await page.getByRole('tab', { name: 'User Metadata' }).click();
  await page.getByRole('heading', { name: 'Current Details' }).waitFor();
  const details = page.frameLocator('#user-metadata-current-details');
  await details.getByText('Waiting for approval:').waitFor();
  await details.getByText('delete_file', { exact: true }).waitFor();
  await details.getByText(`npx tiller approve ${waitingId} ${call.id}`, { exact: true }).waitFor();
  await details.getByText(`npx tiller deny ${waitingId} ${call.id} --reason "..."`, { exact: true }).waitFor();
  const shot = await screenshot(page, 'inbox-turn');
  if (process.env.TILLER_UPDATE_SCREENSHOTS === '1' || !fs.existsSync(DOCS_SCREENSHOT)) {
    fs.mkdirSync(path.dirname(DOCS_SCREENSHOT), { recursive: true });
    fs.copyFileSync(shot, DOCS_SCREENSHOT);
  }

  // The Queries tab runs the `state` query through the worker.
  await page.getByRole('tab', { name: 'Queries' }).click();
  await page.getByTestId('query-select-button').click();
  await page
    .locator('#query-select-select')
    .getByRole('option', { name: /^state\b/ })
    .click();
  await page.getByRole('button', { name: 'Run Query' }).click();
  await page.getByText(`"${call.id}"`).first().waitFor();
  await page.getByText('"awaiting_approval"').first().waitFor();
  await screenshot(page, 'inbox-query');
  await page.close();
});

test('a decision sent from the Temporal UI decides the turn, and the audit names the UI as its channel', async () => {
  const paused = await waitForState(tiller, waitingId, awaitingApproval);
  const call = paused.pendingApprovals[0]!;
  const page = await browser!.context.newPage();
  page.setDefaultTimeout(30_000);
  await page.goto(`${uiUrl}/namespaces/default/workflows/${waitingId}`);
  // The request the UI's "Send a Signal" form makes (temporalio/ui's signalWorkflow): the UI server's
  // signal route, JSON payloads in base64, the CSRF cookie echoed in its header.
  const decision = { id: call.id, approved: false, approver: 'ui-person', reason: 'not from the inbox' };
  const status = await page.evaluate(
    async ({ workflowId, input }) => {
      const b64 = (s: string) => btoa(unescape(encodeURIComponent(s)));
      const { cookie } = (globalThis as unknown as { document: { cookie: string } }).document;
      const csrf = /(?:^|; )_csrf=([^;]*)/.exec(cookie)?.[1] ?? '';
      const res = await fetch(`/api/v1/namespaces/default/workflows/${encodeURIComponent(workflowId)}/signal/decide`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': decodeURIComponent(csrf) },
        body: JSON.stringify({
          signalName: 'decide',
          workflowExecution: { workflowId },
          input: { payloads: [{ metadata: { encoding: b64('json/plain') }, data: b64(input) }] },
        }),
      });
      return res.status;
    },
    { workflowId: waitingId, input: JSON.stringify(decision) },
  );
  await page.close();
  expect(status).toBe(200);
  const result = await tiller.result(waitingId);
  expect(result.toolCalls.find((c) => c.id === call.id)).toMatchObject({
    status: 'denied',
    decision: { approved: false, approver: 'ui-person', via: 'signal' },
  });
  const rows = await auditTrail({ client: tiller.temporal, turns: { turnIds: [waitingId] } });
  expect(rows).toEqual([
    expect.objectContaining({ outcome: 'denied', approver: 'ui-person', channel: 'ui', via: 'signal' }),
  ]);
});
