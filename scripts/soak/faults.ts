/**
 * The fault schedule: each fault kills processes by role (or takes the model's network down), starts
 * them again, and measures recovery — from the moment everything is started again until a fresh
 * canary turn completes. A fault whose role has no process on the target is reported as not injected.
 * Only `processes()`, `kill()` and `start()` of the handle are used, so any target serves. The last,
 * `long-model-outage`, takes the model away for three minutes while the workers are killed (issue 34).
 */
import type { Cluster, ProcessRole } from '../cluster/types';
import type { SoakModel } from './model';

export type FaultKind =
  | 'kill-one-worker'
  | 'kill-all-workers'
  | 'kill-history'
  | 'kill-matching'
  | 'kill-frontend'
  | 'restart-postgres'
  | 'restart-gateway'
  | 'model-outage'
  | 'stall-workers'
  | 'long-model-outage';

export const SCHEDULE: FaultKind[] = [
  'kill-one-worker',
  'model-outage',
  'kill-all-workers',
  'kill-history',
  'restart-gateway',
  'kill-matching',
  'restart-postgres',
  'kill-frontend',
  'stall-workers',
  'long-model-outage',
];

/**
 * How long `stall-workers` keeps workers stopped: past the workflow task timeout (10 s, Temporal's
 * default, which turns keep), so the tasks they hold time out and go to the worker left running.
 */
export const STALL_MS = 12_000;

export interface FaultRun {
  kind: FaultKind;
  injected: boolean;
  note?: string;
  processes: string[];
  /** From the kill (or the outage's start) until everything was started again (the outage ended). */
  downMs?: number;
  /** From then until a canary turn completed; absent when the canary did not complete. */
  recoverMs?: number;
}

interface Plan {
  role: ProcessRole | 'model';
  /** How many of the role's processes: one, all, or all but one. */
  count: 'one' | 'all' | 'all-but-one';
  signal: NodeJS.Signals;
}

const PLANS: Record<FaultKind, Plan> = {
  'kill-one-worker': { role: 'tiller-worker', count: 'one', signal: 'SIGKILL' },
  'kill-all-workers': { role: 'tiller-worker', count: 'all', signal: 'SIGKILL' },
  'kill-history': { role: 'history', count: 'all', signal: 'SIGKILL' },
  'kill-matching': { role: 'matching', count: 'all', signal: 'SIGKILL' },
  // On the dev target the frontend is the whole server (all services in one process).
  'kill-frontend': { role: 'frontend', count: 'all', signal: 'SIGKILL' },
  // A fast shutdown (clients disconnected, nothing lost) and a start: what an operator's restart does.
  'restart-postgres': { role: 'postgres', count: 'all', signal: 'SIGINT' },
  'restart-gateway': { role: 'gateway', count: 'all', signal: 'SIGKILL' },
  'model-outage': { role: 'model', count: 'all', signal: 'SIGKILL' },
  // Stopped, not killed (SIGSTOP, then SIGCONT): their workflow tasks time out while the decisions of
  // `instant` turns arrive; then they wake and finish tasks the server has given to another worker.
  'stall-workers': { role: 'tiller-worker', count: 'all-but-one', signal: 'SIGSTOP' },
  // Three minutes without a model while the workers are killed twice (all, then one) and started again:
  // model calls are retried by time (a budget of 10 minutes), not by count, so no turn may be lost to it.
  'long-model-outage': { role: 'tiller-worker', count: 'all', signal: 'SIGKILL' },
};

export interface FaultDeps {
  cluster: Cluster;
  model: SoakModel;
  /** How long the model's network stays down. */
  outageMs: number;
  /** How long it stays down in `long-model-outage` (three minutes). */
  longOutageMs: number;
  /** Runs a canary turn to completion; rejects if it does not complete. */
  canary(): Promise<void>;
  log(line: string): void;
}

/** Injects one fault; `begin` runs the moment it starts (the soak releases decisions then). */
export async function injectFault(deps: FaultDeps, kind: FaultKind, begin: () => void): Promise<FaultRun> {
  const plan = PLANS[kind];
  const t0 = performance.now();
  if (kind === 'long-model-outage') return longOutage(deps, begin, t0);
  if (plan.role === 'model') {
    const outage = deps.model.outage();
    begin();
    // The fault's designed length: the model's network is down this long, whatever else happens.
    await new Promise((r) => setTimeout(r, deps.outageMs));
    outage.end();
    return measure(deps, { kind, injected: true, processes: ['model'] }, t0);
  }
  const all = deps.cluster.processes().filter((p) => p.role === plan.role);
  if (all.length === 0) {
    begin();
    return { kind, injected: false, processes: [], note: `no ${plan.role} process on this target` };
  }
  const victims = (plan.count === 'one' ? all.slice(0, 1) : plan.count === 'all-but-one' ? all.slice(1) : all).map(
    (p) => p.name,
  );
  deps.log(`fault ${kind}: ${plan.signal} ${victims.join(', ')}`);
  if (plan.signal === 'SIGSTOP') return stall(deps, kind, all, victims, begin, t0);
  const killed = Promise.all(victims.map((name) => deps.cluster.kill(name, plan.signal)));
  begin();
  await killed;
  await Promise.all(victims.map((name) => deps.cluster.start(name)));
  return measure(deps, { kind, injected: true, processes: victims }, t0);
}

/** Stops `victims` for STALL_MS (a stopped process never exits: signalled directly), then resumes them. */
async function stall(
  deps: FaultDeps,
  kind: FaultKind,
  all: ReturnType<Cluster['processes']>,
  victims: string[],
  begin: () => void,
  t0: number,
): Promise<FaultRun> {
  const pids = all.filter((p) => victims.includes(p.name) && p.pid !== undefined).map((p) => p.pid!);
  if (pids.length === 0) {
    begin();
    return { kind, injected: false, processes: [], note: 'no second worker to stall (or no pids)' };
  }
  for (const pid of pids) process.kill(pid, 'SIGSTOP');
  try {
    begin();
    await new Promise((r) => setTimeout(r, STALL_MS));
  } finally {
    for (const pid of pids) process.kill(pid, 'SIGCONT');
  }
  return measure(deps, { kind, injected: true, processes: victims }, t0);
}

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The model down for `longOutageMs`; a third of the way in every worker is killed, two thirds in one. */
async function longOutage(deps: FaultDeps, begin: () => void, t0: number): Promise<FaultRun> {
  const workers = deps.cluster
    .processes()
    .filter((p) => p.role === 'tiller-worker')
    .map((p) => p.name);
  const outage = deps.model.outage();
  begin();
  const third = deps.longOutageMs / 3;
  for (const victims of [workers, workers.slice(0, 1)]) {
    await wait(third);
    deps.log(`fault long-model-outage: model down, SIGKILL ${victims.join(', ') || '(no workers)'}`);
    await Promise.all(victims.map((name) => deps.cluster.kill(name, 'SIGKILL')));
    await Promise.all(victims.map((name) => deps.cluster.start(name)));
  }
  // The fault's designed length, whatever the kills took.
  await wait(Math.max(0, deps.longOutageMs - (performance.now() - t0)));
  outage.end();
  return measure(deps, { kind: 'long-model-outage', injected: true, processes: ['model', ...workers] }, t0);
}

async function measure(deps: FaultDeps, run: FaultRun, t0: number): Promise<FaultRun> {
  const t1 = performance.now();
  run.downMs = Math.round(t1 - t0);
  try {
    await deps.canary();
    run.recoverMs = Math.round(performance.now() - t1);
  } catch (err) {
    run.note = `canary did not complete: ${err instanceof Error ? err.message : String(err)}`;
  }
  deps.log(`fault ${run.kind}: down ${run.downMs} ms, recovered in ${run.recoverMs ?? '—'} ms`);
  return run;
}
