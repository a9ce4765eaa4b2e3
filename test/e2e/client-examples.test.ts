/**
 * The client snippets in examples/clients, each run as a user would run it against a paused turn:
 * - approve.py: PyPI's `temporalio` (installed here into the project's tools venv, .tools/venv) finds
 *   the turn by search attribute, reads `state`, approves through the `decide` update — plain JSON,
 *   the default converter — and sees a second decision refused by the validator;
 * - deny.sh: the stock `temporal` CLI lists, denies through the `decide` signal, and queries;
 * - approve.ts: the TypeScript client, run with tsx.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Worker } from '@temporalio/worker';
import { demoScript } from '../../src/testing/scripted-model';
import { awaitingApproval, createHarness, waitForState, type Harness } from '../support/harness';
import { ROOT } from '../support/processes';

const run = promisify(execFile);
const PYTHON = path.join(ROOT, '.tools', 'venv', 'bin', 'python');
const TEMPORALIO = 'temporalio==1.35.0';

const EXAMPLES = path.join(ROOT, 'examples', 'clients');
const TEMPORAL_BIN = path.join(ROOT, '.tools', 'bin');

let h: Harness;
let worker: Worker;
let running: Promise<void>;

beforeAll(async () => {
  if (!fs.existsSync(PYTHON)) {
    // ensure-temporal creates it when it installs from PyPI; with a `temporal` on PATH it may not have.
    await run('python3', ['-m', 'venv', path.dirname(path.dirname(PYTHON))], { timeout: 120_000 });
  }
  const probe = await run(PYTHON, ['-c', 'import temporalio; print(temporalio.__version__)']).catch(() => undefined);
  if (probe?.stdout.trim() !== TEMPORALIO.split('==')[1]) {
    await run(PYTHON, ['-m', 'pip', 'install', '--disable-pip-version-check', '--quiet', TEMPORALIO], {
      timeout: 240_000,
    });
  }
  h = await createHarness({ script: demoScript() });
  fs.writeFileSync(path.join(h.workspace, 'notes.txt'), 'from python\n');
  worker = await h.worker();
  running = worker.run();
}, 300_000);

afterAll(async () => {
  if (worker?.getState() === 'RUNNING') worker.shutdown();
  await running;
  await h?.close();
}, 60_000);

/** Starts a turn that pauses on `delete_file`, and waits until visibility lists it. */
async function pausedTurn(label: string, file: string) {
  fs.writeFileSync(path.join(h.workspace, file), `from ${label}\n`);
  const turnId = h.turnId(label);
  await h.tiller.startTurn({ agent: 'assistant', input: `Read ${file}, then delete it.`, turnId });
  const paused = await waitForState(h.tiller, turnId, awaitingApproval);
  // Visibility is eventually consistent: wait until the search attribute lists the turn.
  const deadline = Date.now() + 30_000;
  while (!(await h.tiller.pending()).some((p) => p.turnId === turnId)) {
    if (Date.now() > deadline) throw new Error('visibility never listed the waiting turn');
    await new Promise((r) => setTimeout(r, 200));
  }
  return { turnId, paused };
}

test('approve.py: a Python temporalio client lists, reads and approves a paused turn', async () => {
  const { turnId, paused } = await pausedTurn('python', 'notes.txt');
  const { stdout } = await run(PYTHON, [path.join(EXAMPLES, 'approve.py'), h.address, turnId, 'py-alice'], {
    timeout: 90_000,
  });
  const out = JSON.parse(stdout.trim().split('\n').at(-1)!);
  expect(out.listed).toEqual([turnId]);
  expect(out.tool).toBe('delete_file');
  expect(out.args).toEqual({ path: 'notes.txt' });
  expect(out.decision).toMatchObject({
    id: paused.pendingApprovals[0]!.id,
    approved: true,
    approver: 'py-alice',
    via: 'update',
  });
  expect(out.rejected).toMatch(/not pending|already decided/);

  const result = await h.tiller.result(turnId);
  expect(result.status).toBe('completed');
  expect(result.toolCalls.find((c) => c.name === 'delete_file')?.decision?.approver).toBe('py-alice');
  expect(fs.existsSync(path.join(h.workspace, 'notes.txt'))).toBe(false);
});

test('deny.sh: the stock temporal CLI denies through the decide signal', async () => {
  const { turnId, paused } = await pausedTurn('cli', 'keep.txt');
  const callId = paused.pendingApprovals[0]!.id;
  const { stdout } = await run('sh', [path.join(EXAMPLES, 'deny.sh'), turnId, callId, 'not today'], {
    timeout: 60_000,
    env: { ...process.env, PATH: `${TEMPORAL_BIN}:${process.env.PATH}`, TEMPORAL_ADDRESS: h.address },
  });
  expect(stdout).toContain(turnId);
  const result = await h.tiller.result(turnId);
  expect(result.status).toBe('completed');
  const call = result.toolCalls.find((c) => c.name === 'delete_file');
  expect(call?.status).toBe('denied');
  expect(call?.decision).toMatchObject({
    approved: false,
    reason: 'not today',
    approver: 'temporal-cli',
    via: 'signal',
  });
  expect(fs.existsSync(path.join(h.workspace, 'keep.txt'))).toBe(true);
});

test('approve.ts: the TypeScript client approves with the arguments digest it read', async () => {
  const { turnId } = await pausedTurn('typescript', 'ts.txt');
  const { stdout } = await run(
    path.join(ROOT, 'node_modules', '.bin', 'tsx'),
    [path.join(EXAMPLES, 'approve.ts'), turnId],
    {
      timeout: 60_000,
      env: { ...process.env, TEMPORAL_ADDRESS: h.address, TILLER_TASK_QUEUE: h.taskQueue },
    },
  );
  expect(stdout).toContain(`approving delete_file {"path":"ts.txt"} on ${turnId}`);
  expect(JSON.parse(stdout.trim().split('\n').at(-1)!)).toMatchObject({ approved: true, approver: 'example-script' });
  const result = await h.tiller.result(turnId);
  expect(result.toolCalls.find((c) => c.name === 'delete_file')?.status).toBe('succeeded');
  expect(fs.existsSync(path.join(h.workspace, 'ts.txt'))).toBe(false);
});
