/**
 * The three clients that decide a waiting call, as a user would run them: the gateway over HTTP, the
 * `tiller` CLI (`node bin/tiller.js approve|deny`) and the stock `temporal` CLI (the `decide` update,
 * or the signal). Each retries what the faults make transient (a server, worker or gateway down) until
 * the decision is acknowledged or refused, and says which.
 */
import { execFile } from 'node:child_process';
import { TillerClient } from '../../src/client';
import { temporalSettings } from '../../src/client/connect';
import path from 'node:path';
import type { DeciderName } from './scenarios';

export const ROOT = path.resolve(__dirname, '../..');
const TILLER_BIN = path.join(ROOT, 'bin/tiller.js');

/** Names the non-gateway clients decide as (the gateway's approver is its verified caller). */
export const APPROVER: Record<Exclude<DeciderName, 'gateway'>, string> = {
  'tiller-cli': 'soak-cli',
  'temporal-cli-update': 'soak-temporal',
  'temporal-cli-signal': 'soak-temporal-signal',
};

export interface DeciderTarget {
  address: string;
  namespace: string;
  taskQueue: string;
  temporalCli: string;
  /** Read at every attempt: the gateway may be restarting. */
  gateway?: { url: string; token: string };
  /**
   * On the secured cluster: the environment of an approver client (TEMPORAL_CONFIG_FILE, TEMPORAL_PROFILE)
   * and a token per approver name — each client decides as the subject of its own token.
   */
  secured?: { env: Record<string, string>; tokens: Record<string, string> };
}

export interface DecisionRecord {
  client: DeciderName;
  turnId: string;
  callId: string;
  approved: boolean;
  /** acknowledged: the client said it was recorded (a signal: delivered); refused: the turn said no. */
  outcome: 'acknowledged' | 'refused' | 'gave-up';
  approver?: string;
  attempts: number;
  message?: string;
}

type Attempt = { outcome: 'acknowledged' | 'refused' | 'transient'; message: string; approver?: string };

/** A decision the workflow refused, in any client's words (update validator, gateway, CLI). */
// An update to a turn that has ended (a race's loser, after the winner completed it) is refused too.
const REFUSED_RE =
  /not pending|unknown (tool )?call|may not|no pending|already decided|rejected|does not match|already completed|has already ended/i;

/**
 * At most this many CLI processes at once. A `tiller` CLI run from source costs ~3 s of CPU (tsx
 * compiles it), so dozens at once on 2 cores each took longer than the 60 s timeout, were killed and
 * retried — the soak starving its own clients, not a fault of the cluster (full run of 2026-12-03:
 * 20 tiller-cli decisions gave up that way). An operator does not run 60 CLIs at once either.
 */
const MAX_CLI_PROCESSES = 4;
let running = 0;
const queue: (() => void)[] = [];

async function run(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; out: string }> {
  if (running >= MAX_CLI_PROCESSES) await new Promise<void>((resolve) => queue.push(resolve));
  running++;
  try {
    return await runNow(cmd, args, env);
  } finally {
    running--;
    queue.shift()?.();
  }
}

function runNow(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd: ROOT, env: { ...process.env, ...env }, timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, out: `${stdout}${stderr}`.trim() });
    });
  });
}

async function viaGateway(t: DeciderTarget, turnId: string, callId: string, approved: boolean): Promise<Attempt> {
  if (!t.gateway) return { outcome: 'transient', message: 'no gateway on this target' };
  try {
    const res = await fetch(`${t.gateway.url}/turns/${encodeURIComponent(turnId)}/decisions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${t.gateway.token}`,
        'content-type': 'application/json',
        // Retries of one decision are one update: an acknowledgement lost to a fault is not sent twice.
        'idempotency-key': `soak-${turnId}-${callId}`,
      },
      body: JSON.stringify({ id: callId, approved, ...(approved ? {} : { reason: 'soak says no' }) }),
    });
    const body = (await res.json().catch(() => ({}))) as { approver?: string; error?: string };
    if (res.ok)
      return {
        outcome: 'acknowledged',
        message: String(res.status),
        ...(body.approver && { approver: body.approver }),
      };
    if ([403, 409, 422].includes(res.status))
      return { outcome: 'refused', message: `${res.status} ${body.error ?? ''}` };
    return { outcome: 'transient', message: `${res.status} ${body.error ?? ''}` };
  } catch (err) {
    return { outcome: 'transient', message: (err as Error).message };
  }
}

async function viaTillerCli(t: DeciderTarget, turnId: string, callId: string, approved: boolean): Promise<Attempt> {
  const args = approved
    ? ['approve', turnId, callId, '--as', APPROVER['tiller-cli']]
    : ['deny', turnId, callId, '--reason', 'soak says no', '--as', APPROVER['tiller-cli']];
  const env = {
    TEMPORAL_ADDRESS: t.address,
    TEMPORAL_NAMESPACE: t.namespace,
    TILLER_TASK_QUEUE: t.taskQueue,
    ...(t.secured && { ...t.secured.env, TEMPORAL_API_KEY: t.secured.tokens[APPROVER['tiller-cli']]! }),
  };
  const { code, out } = await run(process.execPath, [TILLER_BIN, ...args], env);
  // Exit codes (docs/quickstart.md): 0 ok, 2 decision rejected, 3 Temporal or worker unavailable.
  if (code === 0) return { outcome: 'acknowledged', message: out, approver: APPROVER['tiller-cli'] };
  if (code === 2) return { outcome: 'refused', message: out };
  return { outcome: 'transient', message: `exit ${code}: ${out.slice(-300)}` };
}

async function viaTemporalCli(
  t: DeciderTarget,
  kind: 'update' | 'signal',
  turnId: string,
  callId: string,
  approved: boolean,
): Promise<Attempt> {
  const approver = APPROVER[kind === 'update' ? 'temporal-cli-update' : 'temporal-cli-signal'];
  // The stock CLI's `workflow signal` sends no Temporal headers (only start and update take --headers),
  // so on the secured cluster it cannot name its approver: that decider signals through the SDK instead.
  if (kind === 'signal' && t.secured) return viaSdkSignal(t, turnId, callId, approved, approver);
  const input = JSON.stringify({ id: callId, approved, approver, ...(approved ? {} : { reason: 'soak says no' }) });
  const common = ['--address', t.address, '--namespace', t.namespace, '--workflow-id', turnId, '--name', 'decide'];
  const args =
    kind === 'update'
      ? ['workflow', 'update', 'execute', ...common, '--input', input, '--update-id', `soak-${turnId}-${callId}`]
      : ['workflow', 'signal', ...common, '--input', input];
  // Secured: the approver profile, this approver's token, and the header the server checks against it.
  const secured = t.secured
    ? [
        '--profile',
        'approver',
        '--api-key',
        t.secured.tokens[approver]!,
        '--headers',
        `tillerApprover=${JSON.stringify(approver)}`,
      ]
    : [];
  const { code, out } = await run(t.temporalCli, [...args, ...secured], t.secured?.env ?? {});
  if (code === 0) return { outcome: 'acknowledged', message: out, approver };
  if (kind === 'update' && REFUSED_RE.test(out)) return { outcome: 'refused', message: out };
  return { outcome: 'transient', message: `exit ${code}: ${out.slice(-300)}` };
}

let signaller: Promise<TillerClient> | undefined;

async function viaSdkSignal(
  t: DeciderTarget,
  turnId: string,
  callId: string,
  approved: boolean,
  approver: string,
): Promise<Attempt> {
  try {
    signaller ??= TillerClient.connect(
      temporalSettings({
        ...t.secured!.env,
        TEMPORAL_PROFILE: 'approver',
        TEMPORAL_ADDRESS: t.address,
        TEMPORAL_NAMESPACE: t.namespace,
        TEMPORAL_API_KEY: t.secured!.tokens[approver]!,
      }),
    );
    const client = await signaller;
    await client.signalDecision(turnId, { id: callId, approved, ...(approved ? {} : { reason: 'soak says no' }) });
    return { outcome: 'acknowledged', message: 'signalled', approver };
  } catch (err) {
    signaller = undefined;
    return { outcome: 'transient', message: (err as Error).message };
  }
}

function attempt(client: DeciderName, t: DeciderTarget, turnId: string, callId: string, approved: boolean) {
  switch (client) {
    case 'gateway':
      return viaGateway(t, turnId, callId, approved);
    case 'tiller-cli':
      return viaTillerCli(t, turnId, callId, approved);
    case 'temporal-cli-update':
      return viaTemporalCli(t, 'update', turnId, callId, approved);
    case 'temporal-cli-signal':
      return viaTemporalCli(t, 'signal', turnId, callId, approved);
  }
}

/** Decide until acknowledged or refused; transient failures are retried every `retryMs` until `deadlineMs`. */
export async function decide(
  client: DeciderName,
  target: () => DeciderTarget,
  turnId: string,
  callId: string,
  approved: boolean,
  opts: { deadlineMs: number; retryMs: number },
): Promise<DecisionRecord> {
  const until = Date.now() + opts.deadlineMs;
  for (let attempts = 1; ; attempts++) {
    const a = await attempt(client, target(), turnId, callId, approved);
    if (a.outcome !== 'transient' || Date.now() > until) {
      return {
        client,
        turnId,
        callId,
        approved,
        outcome: a.outcome === 'transient' ? 'gave-up' : a.outcome,
        attempts,
        message: a.message.slice(0, 300),
        ...(a.approver && { approver: a.approver }),
      };
    }
    // Back off before the next try: the fault that made this one fail is still being repaired.
    await new Promise((r) => setTimeout(r, opts.retryMs));
  }
}
