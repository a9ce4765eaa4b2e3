/**
 * Deploy safety: turns and a session paused on approval replay against the current workflow code —
 * through `replayTurns` and through `tiller replay` (ids and `--query`) — and the same histories fail
 * with a non-determinism against a deliberately incompatible workflow bundle (the negative control:
 * `agentTurn`/`agentSession` that start a timer before anything else).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { bundleWorkflowCode } from '@temporalio/worker';
import { replayTurns, type ReplayOutcome } from '../../src/worker/replay';
import type { ScriptFn } from '../../src/testing/scripted-model';
import { awaitingApproval, bundle, createHarness, waitForState, type Harness } from '../support/harness';
import { ROOT } from '../support/processes';

jest.setTimeout(300_000);

let h: Harness;
let turns: string[];
let session: string;
let sessionTurn: string;
let incompatible: { code: string };
let incompatiblePath: string;
let scratch: string;

/** Every turn asks to delete a file (gated for `assistant`), then answers once it has a tool result. */
const script: ScriptFn = ({ body }) => {
  const messages = body.messages as { role: string }[];
  return messages.some((m) => m.role === 'tool')
    ? { content: 'done' }
    : { toolCalls: [{ name: 'delete_file', arguments: { path: 'notes.txt' } }] };
};

const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error };

/** Workflow code a careless change could produce: a timer before everything the recorded runs did. */
function incompatibleWorkflows(): string {
  const src = (file: string) => JSON.stringify(path.join(ROOT, 'src', 'workflows', file));
  return [
    "import { sleep } from '@temporalio/workflow';",
    `import { agentTurn as currentTurn } from ${src('turn')};`,
    `import { agentSession as currentSession } from ${src('session')};`,
    '',
    'export async function agentTurn(...args: Parameters<typeof currentTurn>) {',
    "  await sleep('1 second');",
    '  return currentTurn(...args);',
    '}',
    'export async function agentSession(...args: Parameters<typeof currentSession>) {',
    "  await sleep('1 second');",
    '  return currentSession(...args);',
    '}',
    '',
  ].join('\n');
}

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

function tiller(args: string[], timeoutMs = 240_000): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bin/tiller.js'), ...args], {
      cwd: ROOT,
      env: { ...process.env, TEMPORAL_ADDRESS: h.address, TILLER_FROM_SOURCE: '1', TILLER_TASK_QUEUE: h.taskQueue },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const lines = (r: Ran) => r.stdout.trim().split('\n').filter(Boolean);
const byId = (outcomes: ReplayOutcome[]) => Object.fromEntries(outcomes.map((o) => [o.workflowId, o]));
const query = () => `TillerStatus="awaiting_approval" AND TaskQueue="${h.taskQueue}"`;

beforeAll(async () => {
  h = await createHarness({ script });
  scratch = path.join(ROOT, 'test-artifacts', `replay-${randomUUID().slice(0, 8)}`);
  fs.mkdirSync(scratch, { recursive: true });
  // Inside the project so webpack resolves @temporalio/workflow from its node_modules.
  const workflowsFile = path.join(scratch, 'incompatible-workflows.ts');
  fs.writeFileSync(workflowsFile, incompatibleWorkflows());
  const building = bundleWorkflowCode({ workflowsPath: workflowsFile, logger: quiet });

  turns = [h.turnId('replay-a'), h.turnId('replay-b')];
  session = h.turnId('replay-s');
  sessionTurn = `${session}-turn-1`;
  await h.withWorker(async () => {
    for (const turnId of turns) await h.tiller.startTurn({ agent: 'assistant', input: 'delete notes.txt', turnId });
    expect(await h.tiller.send(session, 'delete notes.txt', { agent: 'assistant' })).toEqual({ turnId: sessionTurn });
    for (const turnId of [...turns, sessionTurn]) await waitForState(h.tiller, turnId, awaitingApproval, 60_000);
  });

  incompatible = await building;
  incompatiblePath = path.join(scratch, 'incompatible-bundle.js');
  fs.writeFileSync(incompatiblePath, incompatible.code);

  // Visibility is eventually consistent: wait until the query sees every paused turn.
  const deadline = Date.now() + 60_000;
  for (;;) {
    const seen = new Set<string>();
    for await (const wf of h.client.workflow.list({ query: query() })) seen.add(wf.workflowId);
    if ([...turns, sessionTurn].every((t) => seen.has(t))) break;
    if (Date.now() > deadline) throw new Error(`visibility never listed the paused turns; saw ${[...seen].join(', ')}`);
    await new Promise((r) => setTimeout(r, 200));
  }
});

afterAll(async () => {
  for (const id of [...(turns ?? []), sessionTurn, session].filter(Boolean)) {
    await h.client.workflow
      .getHandle(id)
      .terminate('test cleanup')
      .catch(() => undefined);
  }
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  await h?.close();
});

test('replayTurns: paused turns and a session replay against the current workflow code', async () => {
  const outcomes = await replayTurns({ client: h.client, workflowIds: [...turns, session] });
  expect(outcomes.map((o) => [o.workflowId, o.verdict])).toEqual([
    [turns[0], 'ok'],
    [turns[1], 'ok'],
    [session, 'ok'],
  ]);
  expect(byId(outcomes)[session]).toMatchObject({ ok: true, workflowType: 'agentSession', runId: expect.any(String) });
  expect(byId(outcomes)[turns[0]!]).toMatchObject({ workflowType: 'agentTurn' });
});

test('replayTurns by visibility query finds every waiting turn; a missing id is reported, not thrown', async () => {
  const outcomes = await replayTurns({
    client: h.client,
    query: query(),
    workflowIds: ['no-such-turn'],
    workflowBundle: bundle(),
  });
  const found = byId(outcomes);
  for (const t of [...turns, sessionTurn]) expect(found[t]).toMatchObject({ ok: true, verdict: 'ok' });
  expect(found['no-such-turn']).toMatchObject({ ok: false, verdict: 'not_found' });
  expect(outcomes).toHaveLength(4);
});

test('negative control: the same histories against an incompatible bundle report non-determinism for each', async () => {
  const outcomes = await replayTurns({
    client: h.client,
    workflowIds: [...turns, session],
    workflowBundle: incompatible,
  });
  expect(outcomes).toHaveLength(3);
  for (const o of outcomes) {
    expect(o).toMatchObject({ ok: false, verdict: 'nondeterminism' });
    expect(o.error).toMatch(/^\[TMPRL1100\] Nondeterminism error: /);
    expect(o.details).toContain(o.error);
  }
});

test('tiller replay <ids> bundles the current code and prints one ok line per workflow', async () => {
  const r = await tiller(['replay', ...turns, session]);
  expect(r.code).toBe(0);
  const out = lines(r);
  expect(out).toHaveLength(3);
  for (const [i, id] of [...turns, session].entries()) expect(out[i]).toMatch(new RegExp(`^ok\\s+${id} run \\S+ \\(`));
  expect(r.stderr).toContain('replayed 3: 3 ok, 0 failed');
});

test('tiller replay --query checks every waiting turn at once; --json gives the outcomes', async () => {
  const r = await tiller(['replay', '--query', query(), '--bundle', bundle().codePath, '--json']);
  expect(r.code).toBe(0);
  const outcomes = JSON.parse(r.stdout) as ReplayOutcome[];
  expect(outcomes.map((o) => o.workflowId).sort()).toEqual([...turns, sessionTurn].sort());
  expect(outcomes.every((o) => o.ok)).toBe(true);
});

test('tiller replay exits 1 with a NONDETERMINISM line per workflow against the incompatible bundle', async () => {
  const r = await tiller(['replay', '--bundle', incompatiblePath, ...turns, session, 'no-such-turn']);
  expect(r.code).toBe(1);
  const out = lines(r);
  expect(out).toHaveLength(4);
  for (const [i, id] of [...turns, session].entries()) {
    expect(out[i]).toMatch(
      new RegExp(
        `^NONDETERMINISM\\s+${id} run \\S+ \\(agent(Turn|Session)\\): \\[TMPRL1100\\] Nondeterminism error: \\S`,
      ),
    );
  }
  expect(out[3]).toMatch(/^NOT FOUND\s+no-such-turn: no such workflow$/);
  expect(r.stderr).toContain('replayed 4: 0 ok, 4 failed');
  expect(r.stderr).not.toMatch(/\n\s+at /);
});

test('tiller replay without ids or --query is a usage error', async () => {
  const r = await tiller(['replay']);
  expect(r.code).toBe(1);
  expect(r.stderr.trim()).toBe('give turn or session ids, or --query (see `npx tiller replay --help`)');
});
