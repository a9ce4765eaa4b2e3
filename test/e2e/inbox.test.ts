/**
 * The gateway's web inbox in a real browser: the run's dev server, an in-process worker with the
 * scripted demo model, a turn of the demo agent paused on `delete_file`, the gateway on a free port.
 * Headless Chromium logs in with a token, finds the waiting call (tool, the arguments as the model
 * sent them, agent, deadline, preview), denies it with a reason and watches the turn complete in the
 * live event view (SSE).
 *
 * Screenshots land in test-artifacts/inbox/. The pending one is also the picture in docs/deciding.md,
 * docs/web-inbox.png: written when missing, or refreshed with TILLER_UPDATE_SCREENSHOTS=1.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Worker } from '@temporalio/worker';
import type { FastifyInstance } from 'fastify';
import type { Page } from 'playwright-core';
import { buildGateway, hashToken } from '../../src/gateway';
import { demoScript } from '../../src/testing/scripted-model';
import { launchChromium, type HeadlessBrowser } from '../support/browser';
import { awaitingApproval, createHarness, waitForState, type Harness } from '../support/harness';
import { ROOT } from '../support/processes';

const ARTIFACTS = path.join(ROOT, 'test-artifacts', 'inbox');
const DOCS_SCREENSHOT = path.join(ROOT, 'docs', 'web-inbox.png');
const TOKEN = randomBytes(24).toString('base64url');

let h: Harness;
let worker: Worker;
let running: Promise<void>;
let gateway: FastifyInstance;
let browser: HeadlessBrowser | undefined;
let url: string;

async function screenshot(page: Page, name: string): Promise<string> {
  const file = path.join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file });
  return file;
}

beforeAll(async () => {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  // Launch the browser first: without Chromium this suite fails at once, with the command to install it.
  browser = await launchChromium({ viewport: { width: 1400, height: 900 } });
  h = await createHarness({ script: demoScript() });
  fs.writeFileSync(path.join(h.workspace, 'notes.txt'), 'buy milk\ncall the plumber\n');
  worker = await h.worker();
  running = worker.run();
  gateway = await buildGateway({
    tiller: h.tiller,
    identities: {
      tokens: [{ name: 'alice', groups: ['ops'], sha256: hashToken(TOKEN), scopes: ['read', 'decide', 'args'] }],
    },
    queryTimeoutMs: 5_000,
  });
  url = await gateway.listen({ host: '127.0.0.1', port: 0 });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await gateway?.close();
  if (worker?.getState() === 'RUNNING') worker.shutdown();
  await running;
  await h?.close();
}, 60_000);

test('a person logs in, sees the waiting call, denies it with a reason and watches the turn complete', async () => {
  const turnId = h.turnId('inbox');
  await h.tiller.startTurn({ agent: 'assistant', input: 'Read notes.txt, then delete it.', turnId });
  const paused = await waitForState(h.tiller, turnId, awaitingApproval);
  const call = paused.pendingApprovals[0]!;
  expect(call.tool).toBe('delete_file');
  // The inbox comes from visibility, which is eventually consistent.
  const deadline = Date.now() + 30_000;
  while (!(await h.tiller.pending()).some((p) => p.turnId === turnId)) {
    if (Date.now() > deadline) throw new Error('visibility never listed the waiting turn');
    await new Promise((r) => setTimeout(r, 200));
  }

  const page = await browser!.context.newPage();
  page.setDefaultTimeout(30_000);
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(err.message));

  await page.goto(`${url}/inbox`);
  // A wrong token is refused and nothing is shown.
  await page.getByLabel('Access token').fill('not-the-token');
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByText('That token is not valid.').waitFor();
  expect(await page.locator('#app').isHidden()).toBe(true);

  await page.getByLabel('Access token').fill(TOKEN);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByTestId('who').getByText('Signed in as alice (ops)').waitFor();

  const card = page.locator(`article[data-turn="${turnId}"][data-call="${call.id}"]`);
  await card.waitFor();
  await card.getByText('delete_file', { exact: true }).waitFor();
  expect(JSON.parse((await card.getByTestId('args').textContent())!)).toEqual({ path: 'notes.txt' });
  expect(await card.getByTestId('args').textContent()).toBe(JSON.stringify(call.args, null, 2));
  expect(await card.getByTestId('preview').textContent()).toContain('buy milk');
  expect(await card.getByTestId('deadline').textContent()).toBe('no deadline');
  await card.getByText('assistant', { exact: true }).waitFor();

  // The token survives a reload (sessionStorage) and is never put in a URL.
  await page.reload();
  await card.waitFor();

  // Watch the turn live before deciding.
  await card.getByRole('button', { name: 'Watch' }).click();
  const events = page.getByTestId('events');
  await events.locator('li[data-type="APPROVAL_REQUESTED"]').waitFor();
  await card.getByLabel('Reason for denying delete_file').fill('keep my notes');
  const shot = await screenshot(page, 'inbox-pending');
  if (process.env.TILLER_UPDATE_SCREENSHOTS === '1' || !fs.existsSync(DOCS_SCREENSHOT)) {
    fs.mkdirSync(path.dirname(DOCS_SCREENSHOT), { recursive: true });
    fs.copyFileSync(shot, DOCS_SCREENSHOT);
  }

  await card.getByRole('button', { name: 'Deny' }).click();
  await events.locator('li[data-type="TOOL_DENIED"]').getByText('delete_file denied by alice: keep my notes').waitFor();
  await events.locator('li[data-type="TURN_COMPLETED"]').waitFor();
  await page.getByTestId('live-status').getByText('completed', { exact: true }).waitFor();
  await card.waitFor({ state: 'detached' }); // the inbox refreshes: nothing waits any more
  await screenshot(page, 'inbox-decided');

  const state = await h.tiller.state(turnId);
  expect(state.status).toBe('completed');
  expect(state.toolCalls.find((c) => c.id === call.id)).toMatchObject({
    status: 'denied',
    decision: { approved: false, approver: 'alice', reason: 'keep my notes' },
  });
  expect(fs.existsSync(path.join(h.workspace, 'notes.txt'))).toBe(true);

  // Logging out forgets the token: the login form again, also after a reload.
  await page.getByRole('button', { name: 'Log out' }).click();
  await page.getByLabel('Access token').waitFor();
  expect(await page.locator('#app').isHidden()).toBe(true);
  expect(await page.getByTestId('who').textContent()).toBe('');
  await page.reload();
  await page.getByLabel('Access token').waitFor();
  expect(await page.locator('#app').isHidden()).toBe(true);
  expect(problems).toEqual([]);
  await page.close();
});
