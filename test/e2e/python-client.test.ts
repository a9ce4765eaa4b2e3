/**
 * Another SDK decides: a Python script using PyPI's `temporalio` (installed here into the project's
 * tools venv, .tools/venv, created by scripts/ensure-temporal.js or here) finds the paused turn by search
 * attribute, reads the `state` query, approves through the `decide` update — plain JSON, the default
 * converter — and sees a second decision refused by the validator. The turn then completes.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Worker } from '@temporalio/worker';
import { demoScript } from '../../src/testing/scripted-model';
import { awaitingApproval, createHarness, waitForState, type Harness } from '../support/harness';
import { ROOT } from '../support/processes';

const run = promisify(execFile);
const PYTHON = path.join(ROOT, '.tools', 'venv', 'bin', 'python');
const TEMPORALIO = 'temporalio==1.35.0';

const SCRIPT = `
import asyncio, json, os, sys
from temporalio.client import Client, WorkflowUpdateFailedError

async def main():
    address, turn_id, approver = sys.argv[1:4]
    client = await Client.connect(address)
    query = 'TillerStatus = "awaiting_approval" AND WorkflowId = "%s"' % turn_id
    listed = [wf.id async for wf in client.list_workflows(query)]
    handle = client.get_workflow_handle(turn_id)
    state = await handle.query("state")
    pending = state["pendingApprovals"][0]
    decision = await handle.execute_update(
        "decide", {"id": pending["id"], "approved": True, "approver": approver, "argsDigest": pending["argsDigest"]}
    )
    try:
        await handle.execute_update("decide", {"id": pending["id"], "approved": False})
        rejected = None
    except WorkflowUpdateFailedError as err:
        rejected = str(err.cause)
    print(json.dumps({"listed": listed, "tool": pending["tool"], "args": pending["args"],
                      "decision": decision, "rejected": rejected}))

asyncio.run(main())
# Skip interpreter finalisation: the SDK's native runtime threads can abort it (PyGILState_Release).
sys.stdout.flush()
os._exit(0)
`;

let h: Harness;
let worker: Worker;
let running: Promise<void>;
let dir: string;

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
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tiller-py-'));
  fs.writeFileSync(path.join(dir, 'decide.py'), SCRIPT);
  h = await createHarness({ script: demoScript() });
  fs.writeFileSync(path.join(h.workspace, 'notes.txt'), 'from python\n');
  worker = await h.worker();
  running = worker.run();
}, 300_000);

afterAll(async () => {
  if (worker?.getState() === 'RUNNING') worker.shutdown();
  await running;
  await h?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
}, 60_000);

test('a Python temporalio client lists, reads and approves a paused turn', async () => {
  const turnId = h.turnId('python');
  await h.tiller.startTurn({ agent: 'assistant', input: 'Read notes.txt, then delete it.', turnId });
  const paused = await waitForState(h.tiller, turnId, awaitingApproval);
  // Visibility is eventually consistent: wait until the search attribute lists the turn.
  const deadline = Date.now() + 30_000;
  while (!(await h.tiller.pending()).some((p) => p.turnId === turnId)) {
    if (Date.now() > deadline) throw new Error('visibility never listed the waiting turn');
    await new Promise((r) => setTimeout(r, 200));
  }

  const { stdout } = await run(PYTHON, [path.join(dir, 'decide.py'), h.address, turnId, 'py-alice'], {
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
