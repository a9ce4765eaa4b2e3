/**
 * The `tiller` command as users run it: real processes against the run's dev server. A `tiller worker`
 * child serves a unique task queue with a scripted model; `tiller run/pending/state/approve` and the
 * stock `temporal` CLI drive turns from the outside, exactly as another terminal (or language) would.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { TillerClient } from '../../src/client';
import type { TurnState } from '../../src/core/state';
import { demoScript, startScriptedModel, type ScriptedModel } from '../../src/testing/scripted-model';
import { ROOT, startChild, type Child } from '../support/processes';

const address = process.env.TILLER_TEST_TEMPORAL_ADDRESS!;
const temporalCli = process.env.TILLER_TEST_TEMPORAL_CLI!;
const taskQueue = `cli-${randomUUID()}`;
const INPUT = 'Read notes.txt, then delete it.';
const ESC = String.fromCharCode(27);

let model: ScriptedModel;
let connection: Connection;
let tiller: TillerClient;
let workspace: string;
let worker: Child;
const running = new Set<ReturnType<typeof spawn>>();
const toTerminate: string[] = [];

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to completion (killed after `timeoutMs`), capturing its output. */
function exec(command: string, args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 60_000): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    running.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      running.delete(child);
      resolve({ code, stdout, stderr });
    });
  });
}

const cliEnv = (extra: NodeJS.ProcessEnv = {}) => ({
  TEMPORAL_ADDRESS: address,
  TILLER_TASK_QUEUE: taskQueue,
  TILLER_FROM_SOURCE: '1',
  ...extra,
});

const cli = (args: string[], extra: NodeJS.ProcessEnv = {}) =>
  exec(process.execPath, [path.join(ROOT, 'bin/tiller.js'), ...args], cliEnv(extra));

const temporal = (args: string[]) => exec(temporalCli, [...args, '--address', address]);

async function eventually<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

async function stateJson(turnId: string): Promise<TurnState> {
  const r = await cli(['state', turnId, '--json']);
  expect(r).toMatchObject({ code: 0 });
  return JSON.parse(r.stdout) as TurnState;
}

const notes = () => path.join(workspace, 'notes.txt');

beforeAll(async () => {
  model = await startScriptedModel({ script: demoScript() });
  connection = await Connection.connect({ address });
  tiller = new TillerClient(new Client({ connection }), taskQueue);
  workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'tiller-cli-'));
  worker = startChild(process.execPath, [path.join(ROOT, 'bin/tiller.js'), 'worker'], {
    ...cliEnv(),
    OPENAI_BASE_URL: model.url,
    OPENAI_API_KEY: 'test',
    TILLER_MODEL: 'scripted',
    TILLER_WORKSPACE: workspace,
    TILLER_WORKFLOW_BUNDLE: process.env.TILLER_TEST_BUNDLE,
  });
  await worker.waitFor(new RegExp(`worker polling task queue ${taskQueue} on ${address}`), 90_000);
});

afterAll(async () => {
  for (const child of running) child.kill('SIGKILL');
  await worker?.kill('SIGKILL');
  for (const id of toTerminate)
    await tiller
      .handle(id)
      .terminate('test cleanup')
      .catch(() => undefined);
  await model?.close();
  await connection?.close();
  if (workspace) fs.rmSync(workspace, { recursive: true, force: true });
});

test('run without a TTY prints how to decide and leaves the turn waiting; pending, state and approve finish it', async () => {
  fs.writeFileSync(notes(), 'notes for test a\n');
  const turnId = `cli-a-${randomUUID().slice(0, 8)}`;

  const run = await cli(['run', 'assistant', INPUT, '--turn-id', turnId]);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  expect(run.stdout).toContain('⚙ read_file {"path":"notes.txt"}');
  expect(run.stdout).toMatch(/⏸ delete_file \{"path":"notes.txt"\} waits for approval/);
  const update = new RegExp(
    `temporal workflow update execute --workflow-id ${turnId} --name decide --input '\\{"id":"([^"]+)","approved":true\\}'`,
  ).exec(run.stdout);
  expect(update).not.toBeNull();
  const id = update![1]!;
  // Hints that run as shown on a fresh clone, where `tiller` is not on PATH.
  expect(run.stdout).toContain(` npx tiller approve ${turnId} ${id}\n`);
  expect(run.stdout).toContain(` npx tiller deny ${turnId} ${id} --reason "..."\n`);
  expect(fs.existsSync(notes())).toBe(true);

  // Visibility is eventually consistent: the turn shows up in `pending` shortly.
  const listed = await eventually('the turn in `tiller pending`', async () => {
    const r = await cli(['pending']);
    expect(r.code).toBe(0);
    return r.stdout.includes(turnId) ? r.stdout : undefined;
  });
  expect(listed).toMatch(new RegExp(`${turnId}\\s+assistant\\s+delete_file`));

  const paused = await stateJson(turnId);
  expect(paused.status).toBe('awaiting_approval');
  expect(paused.pendingApprovals).toEqual([
    expect.objectContaining({ id, tool: 'delete_file', args: { path: 'notes.txt' } }),
  ]);

  const human = await cli(['state', turnId]);
  expect(human.stdout).toContain(`turn ${turnId} · agent assistant · awaiting_approval`);
  expect(human.stdout).toContain(`${id}  delete_file {"path":"notes.txt"}`);
  // The preview the approver judges by (docs/deciding.md promises it here).
  expect(human.stdout).toContain(
    '    preview:\n      would delete notes.txt (17 bytes). First lines:\n      notes for test a\n',
  );

  const approve = await cli(['approve', turnId, id, '--as', 'bob']);
  expect(approve).toMatchObject({ code: 0, stderr: '' });
  expect(approve.stdout).toMatch(new RegExp(`approved ${id} \\(scope once\\) by bob · via update`));

  const again = await cli(['approve', turnId, id, '--as', 'bob']);
  expect(again.code).toBe(2);
  expect(again.stderr).toMatch(/^rejected: /);

  const result = await tiller.result(turnId);
  expect(result.status).toBe('completed');
  expect(result.output).toMatch(/^Done: notes.txt was deleted/);
  const done = await stateJson(turnId);
  expect(done.status).toBe('completed');
  expect(done.toolCalls.find((c) => c.id === id)).toMatchObject({
    status: 'succeeded',
    decision: { approved: true, approver: 'bob' },
  });
  expect(fs.existsSync(notes())).toBe(false);
});

test('run shows tokens so far, colours only when asked for, and ends quietly when its reader stops', async () => {
  fs.writeFileSync(notes(), 'notes for the terminal test\n');
  const plainId = `cli-t-${randomUUID().slice(0, 8)}`;
  const colourId = `cli-t-${randomUUID().slice(0, 8)}`;
  const pipedId = `cli-t-${randomUUID().slice(0, 8)}`;
  toTerminate.push(plainId, colourId, pipedId);

  // Not a TTY: no escape codes, and every model call line carries the running token total.
  const plain = await cli(['run', 'assistant', INPUT, '--turn-id', plainId]);
  expect(plain).toMatchObject({ code: 0, stderr: '' });
  expect(plain.stdout).not.toContain('\u001b[');
  expect(plain.stdout).toMatch(/· Σ 70 tokens/);
  // The model's text, under a gutter, before its model call's line.
  expect(plain.stdout).toMatch(/ {2}│ Let me read notes\.txt first\.\n▸ model call 1 /);

  const coloured = await cli(['run', 'assistant', INPUT, '--turn-id', colourId], { FORCE_COLOR: '1' });
  expect(coloured.code).toBe(0);
  expect(coloured.stdout).toMatch(new RegExp(`${ESC}\\[\\d+m⚙ read_file`));

  // --json is for scripts: one JSON object per line, never colour.
  const json = await cli(['run', 'assistant', INPUT, '--turn-id', `${plainId}-json`, '--json'], { FORCE_COLOR: '1' });
  toTerminate.push(`${plainId}-json`);
  expect(json.code).toBe(0);
  expect(json.stdout).not.toContain('\u001b[');
  for (const l of json.stdout.trim().split('\n')) expect(() => JSON.parse(l) as unknown).not.toThrow();
  expect(json.stdout).not.toContain('│');

  // `| head -1`: the reader closes the pipe; the CLI exits 0 without an EPIPE stack trace.
  const bin = `${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(ROOT, 'bin/tiller.js'))}`;
  const piped = await exec(
    'bash',
    [
      '-c',
      `${bin} run assistant ${JSON.stringify(INPUT)} --turn-id ${pipedId} | head -1; echo "status \${PIPESTATUS[0]}"`,
    ],
    cliEnv(),
  );
  expect(piped.stderr).not.toMatch(/EPIPE|Error/);
  expect(piped.stdout.trim().split('\n')).toHaveLength(2);
  expect(piped.stdout).toMatch(/status 0\s*$/);
});

test('the stock temporal CLI alone starts a turn, reads its state and denies with a reason the model sees', async () => {
  fs.writeFileSync(notes(), 'notes for test b\n');
  const turnId = `cli-b-${randomUUID().slice(0, 8)}`;
  const firstRequest = model.requests.length;

  const start = await temporal([
    'workflow',
    'start',
    '--type',
    'agentTurn',
    '--task-queue',
    taskQueue,
    '--workflow-id',
    turnId,
    '--input',
    JSON.stringify({ agent: 'assistant', input: INPUT }),
  ]);
  expect(start).toMatchObject({ code: 0 });

  const paused = await eventually('awaiting_approval via `temporal workflow query`', async () => {
    const r = await temporal(['workflow', 'query', '--workflow-id', turnId, '--type', 'state', '-o', 'json']);
    if (r.code !== 0) return undefined;
    const state = (JSON.parse(r.stdout) as { queryResult: TurnState[] }).queryResult[0];
    return state?.status === 'awaiting_approval' ? state : undefined;
  });
  const id = paused.pendingApprovals[0]!.id;

  const deny = await temporal([
    'workflow',
    'update',
    'execute',
    '--workflow-id',
    turnId,
    '--name',
    'decide',
    '--input',
    JSON.stringify({ id, approved: false, reason: 'not today' }),
    '-o',
    'json',
  ]);
  expect(deny).toMatchObject({ code: 0 });
  expect(JSON.parse(deny.stdout).result).toMatchObject({ id, approved: false, reason: 'not today', via: 'update' });

  const result = await temporal(['workflow', 'result', '--workflow-id', turnId, '-o', 'json']);
  expect(result).toMatchObject({ code: 0 });
  const parsed = JSON.parse(result.stdout);
  expect(parsed.status).toBe('COMPLETED');
  const turnResult = parsed.closeEvent.workflowExecutionCompletedEventAttributes.result[0];
  expect(turnResult).toMatchObject({ status: 'completed', output: 'I did not delete notes.txt: not today' });
  expect(fs.existsSync(notes())).toBe(true);

  // The model saw the reason itself as the denied call's result.
  const toolMessages = model.requests
    .slice(firstRequest)
    .flatMap((r) => r.body.messages as { role: string; tool_call_id?: string; content?: unknown }[])
    .filter((m) => m.role === 'tool' && m.tool_call_id === id);
  expect(toolMessages.length).toBeGreaterThan(0);
  expect(toolMessages.every((m) => m.content === 'not today')).toBe(true);
});

test('send starts a session on first use, follows its turn, and a second send while it waits is rejected', async () => {
  fs.writeFileSync(notes(), 'notes for the session\n');
  const sessionId = `cli-s-${randomUUID().slice(0, 8)}`;
  toTerminate.push(sessionId);
  const sent = await cli(['send', sessionId, INPUT]);
  expect(sent.code).toBe(0);
  expect(sent.stdout).toContain(`session ${sessionId} · turn ${sessionId}-turn-1`);
  expect(sent.stdout).toMatch(/⏸ delete_file \{"path":"notes.txt"\} waits for approval/);
  const busy = await cli(['send', sessionId, 'and another thing']);
  expect(busy.code).toBe(2);
  expect(busy.stderr).toMatch(/rejected: .*is still running turn/);
  const shown = await cli(['session', sessionId, '--json']);
  expect(shown.code).toBe(0);
  const session = JSON.parse(shown.stdout);
  expect(session).toMatchObject({ sessionId, agent: 'assistant', status: 'running' });
  expect(session.currentTurn.pendingApprovals[0].tool).toBe('delete_file');
});

test('send --inline-turns runs the turn inside its session; state and approve take the turn id it prints', async () => {
  fs.writeFileSync(notes(), 'notes for the inline session\n');
  const sessionId = `cli-i-${randomUUID().slice(0, 8)}`;
  toTerminate.push(sessionId);
  const sent = await cli(['send', sessionId, INPUT, '--inline-turns']);
  expect(sent.code).toBe(0);
  const turnId = `${sessionId}#turn-1`;
  expect(sent.stdout).toContain(`session ${sessionId} · turn ${turnId}`);
  expect(sent.stdout).toMatch(/⏸ delete_file \{"path":"notes.txt"\} waits for approval/);
  const state = await stateJson(turnId);
  expect(state).toMatchObject({ turnId, sessionId, status: 'awaiting_approval' });
  const approved = await cli(['approve', turnId, state.pendingApprovals[0]!.id]);
  expect(approved).toMatchObject({ code: 0 });
  expect(await tiller.result(turnId)).toMatchObject({ status: 'completed' });
  expect(fs.existsSync(notes())).toBe(false);
  // No child workflow: the turn's id names no workflow of its own.
  await expect(tiller.temporal.workflow.getHandle(turnId).describe()).rejects.toThrow();
});

test('expected failures are a clear message (no stack) and a distinct exit code', async () => {
  const missing = await cli(['state', 'no-such-turn']);
  expect(missing).toMatchObject({ code: 4, stdout: '' });
  expect(missing.stderr.trim()).toBe('no turn no-such-turn');

  const deserted = `nobody-${randomUUID()}`;
  const turnId = `cli-c-${randomUUID().slice(0, 8)}`;
  await new TillerClient(tiller.temporal, deserted).startTurn({ agent: 'assistant', input: INPUT, turnId });
  toTerminate.push(turnId);
  const noWorker = await cli(['state', turnId]);
  expect(noWorker.code).toBe(3);
  const [said, seen, ...rest] = noWorker.stderr.trim().split('\n');
  expect(said).toBe(`no worker is polling task queue ${deserted}: start one with \`npx tiller worker\``);
  // What visibility knows, without a worker: the turn runs (as its client started it), nothing has run it yet.
  expect(seen).toMatch(
    /^visibility: workflow running · Tiller status running as started \(no worker has run it\) · agent assistant · started \d{4}-/,
  );
  expect(rest).toEqual([]);

  const noWorkerApprove = await cli(['approve', turnId, 'call_1']);
  expect(noWorkerApprove.code).toBe(3);
  expect(noWorkerApprove.stderr.trim().split('\n')).toEqual([said, seen]);

  const noWorkerRun = await cli(['run', 'assistant', INPUT, '--turn-id', `${turnId}-run`], {
    TILLER_TASK_QUEUE: deserted,
  });
  toTerminate.push(`${turnId}-run`);
  expect(noWorkerRun.code).toBe(3);
  expect(noWorkerRun.stderr).toContain(`no worker is polling task queue ${deserted}`);

  const unreachable = await cli(['state', turnId], { TEMPORAL_ADDRESS: '127.0.0.1:1' });
  expect(unreachable.code).toBe(3);
  expect(unreachable.stderr).toMatch(/^cannot reach Temporal at 127\.0\.0\.1:1: /);
  for (const r of [missing, noWorker, noWorkerApprove, noWorkerRun, unreachable])
    expect(r.stderr).not.toMatch(/\n\s+at /);
});

test('the worker shuts down cleanly on SIGTERM', async () => {
  const exited = new Promise<number | null>((resolve) => worker.process.once('exit', (code) => resolve(code)));
  worker.process.kill('SIGTERM');
  expect(await exited).toBe(0);
  expect(worker.output()).toContain('worker stopped');
});
