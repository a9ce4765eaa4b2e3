/**
 * The commands Tiller prints run as printed, from a consumer's project directory: a scratch project
 * whose `node_modules/.bin/tiller` is this package's bin (where `npx tiller` finds an installed
 * package's bin), with no `TEMPORAL_*` in its environment and no `temporal` on PATH. The hints are
 * parsed from what `tiller run` prints (and from a turn's details in the Temporal UI) and executed with
 * `sh -c` exactly as printed: plain gates, gates with named approvers (`--as`), group gates (`--group`),
 * and the stock CLI's `decide` update through `npx tiller temporal`.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Worker } from '@temporalio/worker';
import { z } from 'zod';
import { defineAgent } from '../../src/agents/define';
import { defineTool } from '../../src/tools/define';
import { createHarness, scriptByInput, waitForState, awaitingApproval, type Harness } from '../support/harness';
import { ROOT } from '../support/processes';

const dropped: string[] = [];
const dropTable = defineTool({
  name: 'drop_table',
  description: 'drop a table',
  input: z.object({ table: z.string() }),
  execute: ({ table }) => {
    dropped.push(table);
    return `dropped ${table}`;
  },
});
const agent = (name: string, approvers?: string[]) =>
  defineAgent({
    name,
    instructions: 'x',
    tools: ['drop_table'],
    approvals: { drop_table: approvers ? { approvers } : true },
  });
const agents = [agent('open'), agent('dba', ['dba-1', 'group:ops']), agent('grouped', ['group:dba'])];

const routes: Record<string, any[]> = {};
const drop = (input: string, table: string) => {
  routes[input] = [
    { toolCalls: [{ id: `call_${table}`, name: 'drop_table', arguments: { table } }] },
    { content: 'done' },
  ];
  return input;
};

let h: Harness;
let worker: Worker;
let running: Promise<void>;
let consumer: string;

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `command` with `args` in the consumer project, with only a bare environment (plus `extra`). */
function exec(command: string, args: string[], extra: NodeJS.ProcessEnv = {}): Promise<Ran> {
  const env: NodeJS.ProcessEnv = {
    PATH: (process.env.PATH ?? '')
      .split(path.delimiter)
      .filter((dir) => !fs.existsSync(path.join(dir, 'temporal')))
      .join(path.delimiter),
    HOME: process.env.HOME,
    // This checkout has no build: the bin runs the sources (as it does in a clone).
    TILLER_FROM_SOURCE: '1',
    npm_config_update_notifier: 'false',
    ...extra,
  };
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: consumer, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A printed command, run as printed. */
const runPrinted = (line: string) => exec('sh', ['-c', line]);

/** `tiller run <agent> <input>` from the consumer project: its printed decide commands (approve, deny, update). */
async function printedHints(agentName: string, input: string): Promise<{ turnId: string; hints: string[] }> {
  const run = await exec(process.execPath, [path.join(consumer, 'node_modules/.bin/tiller'), 'run', agentName, input], {
    TEMPORAL_ADDRESS: h.address,
    TILLER_TASK_QUEUE: h.taskQueue,
  });
  expect(run).toMatchObject({ code: 0 });
  const turnId = /turn (\S+) started/.exec(run.stdout)![1]!;
  const lines = run.stdout.split('\n');
  const at = lines.findIndex((l) => l.endsWith('Decide from any client:'));
  expect(at).toBeGreaterThan(0);
  return { turnId, hints: lines.slice(at + 1, at + 4).map((l) => l.trim()) };
}

beforeAll(async () => {
  h = await createHarness({ script: scriptByInput(routes) });
  consumer = fs.mkdtempSync(path.join(os.tmpdir(), 'tiller-consumer-'));
  fs.writeFileSync(path.join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
  fs.mkdirSync(path.join(consumer, 'node_modules/.bin'), { recursive: true });
  fs.symlinkSync(path.join(ROOT, 'bin/tiller.js'), path.join(consumer, 'node_modules/.bin/tiller'));
  worker = await h.worker({ agents, tools: [dropTable] });
  running = worker.run();
});

afterAll(async () => {
  worker?.shutdown();
  await running;
  await h?.close();
  if (consumer) fs.rmSync(consumer, { recursive: true, force: true });
});

test('a plain gate: the printed approve command runs as printed from the consumer project', async () => {
  const { turnId, hints } = await printedHints('open', drop('open: drop', 'a'));
  expect(hints[0]).toBe(`TEMPORAL_ADDRESS=${h.address} npx tiller approve ${turnId} call_a`);
  const approve = await runPrinted(hints[0]!);
  expect(approve).toMatchObject({ code: 0, stderr: '' });
  expect(approve.stdout).toMatch(/^approved call_a \(scope once\) by cli:\S+ · via update/);
  await h.client.workflow.getHandle(turnId).result();
  expect(dropped).toContain('a');
});

test('a gate with approvers: the printed commands carry --as, and run', async () => {
  const { turnId, hints } = await printedHints('dba', drop('dba: drop', 'b'));
  expect(hints[0]).toBe(`TEMPORAL_ADDRESS=${h.address} npx tiller approve ${turnId} call_b --as dba-1`);
  expect(hints[1]).toBe(`TEMPORAL_ADDRESS=${h.address} npx tiller deny ${turnId} call_b --as dba-1 --reason "..."`);
  // Without its --as, the same command is refused (what the hint printed before it carried one).
  const bare = await runPrinted(hints[0]!.replace(' --as dba-1', ''));
  expect(bare).toMatchObject({ code: 2 });
  expect(bare.stderr).toMatch(/rejected: cli:\S+ may not decide drop_table; allowed: dba-1, group:ops/);
  const deny = await runPrinted(hints[1]!);
  expect(deny).toMatchObject({ code: 0, stderr: '' });
  expect(deny.stdout).toMatch(/^denied call_b by dba-1 · via update/);
  await h.client.workflow.getHandle(turnId).result();
  expect(dropped).not.toContain('b');
});

test('a group gate: the printed commands carry --group, and run', async () => {
  const { turnId, hints } = await printedHints('grouped', drop('grouped: drop', 'c'));
  expect(hints[0]).toBe(`TEMPORAL_ADDRESS=${h.address} npx tiller approve ${turnId} call_c --group dba`);
  const approve = await runPrinted(hints[0]!);
  expect(approve).toMatchObject({ code: 0, stderr: '' });
  expect(approve.stdout).toMatch(/^approved call_c \(scope once\) by cli:\S+ · via update/);
  await h.client.workflow.getHandle(turnId).result();
  expect(dropped).toContain('c');
});

test('the stock CLI hint goes through `npx tiller temporal` (no `temporal` on PATH) and runs', async () => {
  const { turnId, hints } = await printedHints('dba', drop('dba: update', 'd'));
  expect(hints[2]).toBe(
    `TEMPORAL_ADDRESS=${h.address} npx tiller temporal workflow update execute --workflow-id ${turnId} ` +
      `--name decide --input '{"id":"call_d","approved":true,"approver":"dba-1"}'`,
  );
  const update = await runPrinted(hints[2]!);
  expect(update).toMatchObject({ code: 0 });
  await h.client.workflow.getHandle(turnId).result();
  expect(dropped).toContain('d');
});

test("a turn's details in the Temporal UI: its deny command (group gate, stock CLI) runs as printed", async () => {
  const turnId = h.turnId('details');
  await h.tiller.startTurn({ agent: 'grouped', input: drop('grouped: details', 'e'), turnId });
  await waitForState(h.tiller, turnId, awaitingApproval);
  const metadata: any = await h.client.workflow.getHandle(turnId).query('__temporal_workflow_metadata');
  const deny = (metadata.currentDetails as string).split('\n').find((l) => l.startsWith('- deny: '))!;
  const [tiller, update] = [...deny.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
  expect(tiller).toBe(`npx tiller deny ${turnId} call_e --group dba --reason "..."`);
  expect(update).toBe(
    `npx tiller temporal workflow update execute --workflow-id ${turnId} --name decide ` +
      `--input '{"id":"call_e","approved":false,"approverGroups":["dba"]}'`,
  );
  // The details cannot know the client's address: the consumer's shell has it, as TEMPORAL_ADDRESS.
  const ran = await exec('sh', ['-c', update!], { TEMPORAL_ADDRESS: h.address });
  expect(ran).toMatchObject({ code: 0 });
  await h.client.workflow.getHandle(turnId).result();
  expect(dropped).not.toContain('e');
});

test("a session's inline turn: its details' commands (tiller, and the stock CLI to the session) run as printed", async () => {
  const sessionId = h.turnId('inline-details');
  const sent = async (table: string) => {
    const { turnId } = await h.tiller.send(sessionId, drop(`open: inline ${table}`, table), {
      agent: 'open',
      inlineTurns: true,
    });
    await waitForState(h.tiller, turnId, awaitingApproval);
    const metadata: any = await h.client.workflow.getHandle(sessionId).query('__temporal_workflow_metadata');
    const approve = (metadata.currentDetails as string).split('\n').find((l) => l.startsWith('- approve: '))!;
    const [tiller, update] = [...approve.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
    return { turnId, tiller: tiller!, update: update! };
  };
  const first = await sent('f');
  expect(first.turnId).toBe(`${sessionId}#turn-1`);
  expect(first.tiller).toBe(`npx tiller approve '${first.turnId}' call_f`);
  expect(await exec('sh', ['-c', first.tiller], { TEMPORAL_ADDRESS: h.address })).toMatchObject({ code: 0 });
  expect(await h.tiller.result(first.turnId)).toMatchObject({ status: 'completed' });

  const second = await sent('g');
  // The stock CLI's update goes to the session's workflow and names the turn.
  expect(second.update).toBe(
    `npx tiller temporal workflow update execute --workflow-id ${sessionId} --name decide ` +
      `--input '{"turnId":"${second.turnId}","id":"call_g","approved":true}'`,
  );
  expect(await exec('sh', ['-c', second.update], { TEMPORAL_ADDRESS: h.address })).toMatchObject({ code: 0 });
  expect(await h.tiller.result(second.turnId)).toMatchObject({ status: 'completed' });
  expect(dropped).toEqual(expect.arrayContaining(['f', 'g']));
});
