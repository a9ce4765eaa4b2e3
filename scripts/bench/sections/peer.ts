/**
 * Peer: the official Temporal integration (`@temporalio/openai-agents` with `@openai/agents`), run
 * from `scripts/bench/peer/` (its own package.json and node_modules, installed on first use) in a process
 * of its own, against the same dev server and the same scripted model, with the same instant tool.
 * Its step times are taken exactly like ours: on the model server, between consecutive requests.
 *
 * The peer calls the model without streaming (its streaming mode needs a workflow stream), so ours
 * is measured here both ways — streamed (Tiller's default) and unary — right before the peer, on the
 * same machine load, over the same number of turns and steps; and ours on the fast path (the same
 * tool, read-only: a local activity), both ways.
 */
import { spawnSync, fork } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { temporal } from '@temporalio/proto';
import { AGENT, FAST_AGENT, planInput, UNARY_AGENT, UNARY_FAST_AGENT } from '../fixture';
import type { BenchEnv } from '../env';
import { gaps, roundSummary, summarize, type Summary } from '../stats';
import { runTurnOfSteps } from './durable';

export const PEER_DIR = path.resolve(__dirname, '../peer');

export interface HistoryCount {
  events: number;
  eventsPerStep: number;
  protoBytes: number;
}

export interface PeerResult {
  ran: boolean;
  /** Why it did not run (install or runtime error, verbatim). */
  error?: string;
  versions?: Record<string, string>;
  stepsPerTurn?: number;
  turns?: number;
  peer?: { stepMs: Summary; clientMsPerStep: number; history: HistoryCount };
  oursStreamed?: { stepMs: Summary; clientMsPerStep: number; history: HistoryCount };
  oursUnary?: { stepMs: Summary; clientMsPerStep: number; history: HistoryCount };
  /** Ours on the fast path (a read-only tool), streamed and unary. */
  oursFast?: { stepMs: Summary; clientMsPerStep: number; history: HistoryCount };
  oursFastUnary?: { stepMs: Summary; clientMsPerStep: number; history: HistoryCount };
}

function ensureInstalled(): string | undefined {
  if (fs.existsSync(path.join(PEER_DIR, 'node_modules/@temporalio/openai-agents/package.json'))) return undefined;
  const lock = fs.existsSync(path.join(PEER_DIR, 'package-lock.json'));
  const args = lock ? ['ci', '--no-audit', '--no-fund'] : ['install', '--no-audit', '--no-fund'];
  process.stderr.write(`[bench] installing the peer: npm ${args.join(' ')} in scripts/bench/peer\n`);
  const r = spawnSync('npm', args, { cwd: PEER_DIR, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.status === 0) return undefined;
  return `npm ${args.join(' ')} in scripts/bench/peer failed (exit ${r.status}):\n${`${r.stdout}${r.stderr}`.trim().slice(-3000)}`;
}

async function historyCount(env: BenchEnv, workflowId: string, steps: number): Promise<HistoryCount> {
  const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
  const events = history.events?.length ?? 0;
  return {
    events,
    eventsPerStep: Math.round((events / steps) * 100) / 100,
    protoBytes: temporal.api.history.v1.History.encode(history).finish().length,
  };
}

interface PeerReply {
  type: 'done' | 'error';
  error?: string;
  turns?: { turnId: string; wallMs: number; output: string }[];
  versions?: Record<string, string>;
}

function runPeerProcess(env: BenchEnv, inputs: { turnId: string; input: string; steps: number }[]): Promise<PeerReply> {
  const cfg = {
    address: env.server.address,
    namespace: env.server.namespace,
    taskQueue: `bench-peer-${randomUUID().slice(0, 8)}`,
    modelUrl: env.model.url,
    inputs,
    resultBytes: env.resultBytes,
  };
  return new Promise((resolve) => {
    let reply: PeerReply | undefined;
    let stderr = '';
    const child = fork(path.join(PEER_DIR, 'run.ts'), [], {
      cwd: PEER_DIR,
      execArgv: process.execArgv,
      env: { ...process.env, BENCH_PEER: JSON.stringify(cfg) },
      stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
    });
    child.stderr?.on('data', (c: Buffer) => {
      stderr = (stderr + c.toString()).slice(-4000);
    });
    child.on('message', (m: PeerReply) => {
      reply = m;
    });
    child.on('exit', (code) => {
      resolve(reply ?? { type: 'error', error: `peer process exited with ${code} without a result:\n${stderr}` });
    });
  });
}

async function ours(env: BenchEnv, agent: string, steps: number, turns: number) {
  const { taskQueue, tiller } = env.queue(`peer-ours-${agent}`);
  const worker = await env.worker(taskQueue);
  return worker.runUntil(async () => {
    await runTurnOfSteps(env, tiller, 10, agent); // warm-up
    const all: number[] = [];
    let wall = 0;
    let last = '';
    for (let t = 0; t < turns; t++) {
      const run = await runTurnOfSteps(env, tiller, steps, agent);
      all.push(...run.stepTimes);
      wall += run.wall;
      last = run.key;
    }
    return {
      stepMs: roundSummary(summarize(all), 3),
      clientMsPerStep: Math.round((wall / (steps * turns)) * 1000) / 1000,
      history: await historyCount(env, last, steps),
    };
  });
}

export async function runPeer(env: BenchEnv, opts: { steps: number; turns: number }): Promise<PeerResult> {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  if (major < 20 || (major === 20 && minor < 3)) {
    return { ran: false, error: `@temporalio/openai-agents needs Node >= 20.3.0; this is ${process.version}` };
  }
  const installError = ensureInstalled();
  if (installError) return { ran: false, error: installError };

  const oursStreamed = await ours(env, AGENT, opts.steps, opts.turns);
  const oursUnary = await ours(env, UNARY_AGENT, opts.steps, opts.turns);
  const oursFast = await ours(env, FAST_AGENT, opts.steps, opts.turns);
  const oursFastUnary = await ours(env, UNARY_FAST_AGENT, opts.steps, opts.turns);
  const mine = { oursStreamed, oursUnary, oursFast, oursFastUnary };

  const warm = { turnId: `peer-warm-${randomUUID()}`, steps: 10 };
  const measured = Array.from({ length: opts.turns }, () => ({ turnId: `peer-${randomUUID()}`, steps: opts.steps }));
  const inputs = [warm, ...measured].map((t) => ({ ...t, input: planInput({ key: t.turnId, steps: t.steps }) }));
  const reply = await runPeerProcess(env, inputs);
  if (reply.type !== 'done' || !reply.turns) {
    return { ran: false, error: reply.error ?? 'no result', ...mine };
  }
  const all: number[] = [];
  let wall = 0;
  for (const t of measured) {
    const stepTimes = gaps(env.rec.requests.get(t.turnId) ?? []);
    env.rec.requests.delete(t.turnId);
    if (stepTimes.length !== t.steps) {
      return {
        ran: false,
        error: `peer turn ${t.turnId}: the model saw ${stepTimes.length + 1} requests, expected ${t.steps + 1}`,
        ...mine,
      };
    }
    all.push(...stepTimes);
    wall += reply.turns.find((r) => r.turnId === t.turnId)?.wallMs ?? 0;
  }
  env.rec.requests.delete(warm.turnId);
  const lastId = measured[measured.length - 1]!.turnId;
  return {
    ran: true,
    ...(reply.versions && { versions: reply.versions }),
    stepsPerTurn: opts.steps,
    turns: opts.turns,
    peer: {
      stepMs: roundSummary(summarize(all), 3),
      clientMsPerStep: Math.round((wall / (opts.steps * opts.turns)) * 1000) / 1000,
      history: await historyCount(env, lastId, opts.steps),
    },
    ...mine,
  };
}
