/**
 * Runs one hostile-decision case: a fresh turn waiting for approval of `delete_file` on the sentinel,
 * the case's decisions sent to it (one by one, checked after each, or all at once), then a valid deny
 * that must still end the turn, and the invariants.
 */
import { WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { BUDGETS } from './config';
import type { DecisionCase, HostileDecision, Pending } from './decision-cases';
import { startAwaitingTurn } from './awaiting-turn';
import { tracer } from './trace';
import { cleanUp, type FuzzEnv } from './env';
import { describe, eventBytes, failureText, forcedByServer, readHistory, taskFailure } from './history';
import { checkTurn, stateViolations } from './invariants';
import { raw, rawPayloadBytes } from './raw-client';
import type { CaseOutcome } from './tally';
import { errorText, queryState, type StateAnswer } from './turn-probe';
import { temporal } from '@temporalio/proto';

const SIGNALED = temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED;

type Sent = 'delivered' | 'rejected' | 'accepted' | `refused by Temporal: ${string}`;

export async function runDecisionCase(env: FuzzEnv, c: DecisionCase): Promise<CaseOutcome> {
  const turnId = env.h.turnId(`fuzz-decide-${c.cls}`);
  const started = Date.now();
  const counts: Record<string, number> = {};
  const count = (k: string) => (counts[k] = (counts[k] ?? 0) + 1);
  const violations: string[] = [];
  const approved = new Set<string>();
  const trace = tracer(turnId);
  try {
    const pending = await startAwaitingTurn(env, turnId);
    if (typeof pending === 'string') {
      const worker = await env.worker.canary();
      return { label: c.label, end: 'setup failed', ms: Date.now() - started, violations: [pending, ...worker] };
    }
    trace('awaiting approval');
    if (c.concurrent) {
      violations.push(...(await flood(env, turnId, pending, c.inputs, count)));
      trace(`flood of ${c.inputs.length} sent and checked`);
    } else {
      for (const [i, input] of c.inputs.entries()) {
        // Once the workflow task fails, later inputs can show nothing more (each would only time out).
        const d = await describe(env.h.client, turnId, BUDGETS.queryMs);
        if (d.status !== 'RUNNING' || d.taskAttempt > 1) {
          count('not sent: turn already closed or failing');
          continue;
        }
        violations.push(...(await one(env, turnId, pending, input, count)));
        if (input.expect === 'approves') approved.add(pending.id);
        trace(`input ${i + 1} (${input.via} ${input.label}) sent and checked`);
      }
    }
    // A valid decision still decides the turn, unless an approval above already did (when `state`
    // cannot say, a case that sent an approval is not denied: the approval may have gone through).
    const now = await queryState(env.h.client, turnId);
    const approving = c.inputs.some((i) => i.expect === 'approves');
    if (now.ok ? now.state.pendingApprovals.some((p) => p.id === pending.id) : !approving) {
      violations.push(...(await validDeny(env, turnId, pending, count)));
    }
    trace('final deny');
    const signalFlood = c.concurrent && c.inputs.every((i) => i.via === 'signal');
    const check = await checkTurn(env.h.client, turnId, {
      sentinel: env.sentinel,
      reader: env.reader,
      approved,
      signalFlood,
    });
    violations.push(...check.violations);
    if (check.forcedCloses) counts['server-forced task failures (tolerated)'] = check.forcedCloses;
    await cleanUp(env, turnId);
    violations.push(...(await env.worker.canary()));
    trace('canary');
    return {
      label: c.label,
      end: check.settled.kind === 'closed' ? check.settled.status.toLowerCase() : check.settled.kind,
      ms: Date.now() - started,
      ...(check.answer.ok && { stateBytes: check.answer.bytes }),
      ...(check.history && { historyBytes: check.history.bytes }),
      violations: [...new Set(violations)],
      counts,
    };
  } finally {
    await cleanUp(env, turnId);
  }
}

/** A valid deny must still be accepted (not tried on a turn whose workflow task is failing: it would only time out). */
async function validDeny(
  env: FuzzEnv,
  turnId: string,
  pending: Pending,
  count: (k: string) => void,
): Promise<string[]> {
  const d = await describe(env.h.client, turnId, BUDGETS.queryMs);
  if (d.status !== 'RUNNING') return [];
  if (d.taskAttempt > 1) return [`I1 a valid deny cannot be applied: the workflow task is on attempt ${d.taskAttempt}`];
  try {
    await env.h.client.connection.withAbortSignal(AbortSignal.timeout(BUDGETS.queryMs), () =>
      env.h.tiller.deny(turnId, pending.id, { reason: 'fuzz: valid deny' }),
    );
    count('valid deny accepted');
    return [];
  } catch (err) {
    return [`I1 a valid deny was refused after the hostile decisions: ${errorText(err)}`];
  }
}

interface Snapshot {
  answer: StateAnswer;
  historyLength: number;
}

async function snapshot(client: Client, turnId: string): Promise<Snapshot> {
  const [answer, d] = await Promise.all([queryState(client, turnId), describe(client, turnId, BUDGETS.queryMs)]);
  return { answer, historyLength: d.historyLength };
}

/** Sends one decision through its channel; what became of it. */
async function send(
  env: FuzzEnv,
  turnId: string,
  pending: Pending,
  input: HostileDecision,
  timeoutMs: number = BUDGETS.queryMs,
): Promise<Sent> {
  const handle = env.raw.workflow.getHandle(turnId);
  const payload = raw(input.payload(pending));
  try {
    if (input.via === 'signal') {
      await env.raw.connection.withAbortSignal(AbortSignal.timeout(BUDGETS.queryMs), () =>
        handle.signal('decide', payload),
      );
      return 'delivered';
    }
    await env.raw.connection.withAbortSignal(AbortSignal.timeout(timeoutMs), () =>
      handle.executeUpdate('decide', { args: [payload] }),
    );
    return 'accepted';
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError) return 'rejected';
    return `refused by Temporal: ${errorText(err)}`;
  }
}

/**
 * Waits until the turn has no workflow task pending (the signal was handled), or one retrying; when
 * `patient` (a signal flood), a retrying task may still recover within the bound.
 */
async function handled(client: Client, turnId: string, patient = false): Promise<string[]> {
  const deadline = Date.now() + BUDGETS.settleMs;
  let attempt = 0;
  while (Date.now() < deadline) {
    const d = await describe(client, turnId, BUDGETS.queryMs);
    // An approval may end the turn before this looks: closing as completed or failed is a defined state.
    if (d.status === 'COMPLETED' || d.status === 'FAILED') return [];
    if (d.status !== 'RUNNING') return [`I1 the turn closed as ${d.status} while deciding`];
    attempt = d.taskAttempt;
    if (attempt > 1 && !patient) return [`I3 the workflow task is on attempt ${attempt} after a decision`];
    if (attempt === 0) return [];
    await new Promise((r) => setTimeout(r, 50));
  }
  if (attempt > 1)
    return [`I3 the workflow task is still on attempt ${attempt} ${BUDGETS.settleMs} ms after the decisions`];
  return [`I1 a decision was not handled within ${BUDGETS.settleMs} ms`];
}

/** One decision, and what it did to the turn's state and history. */
async function one(
  env: FuzzEnv,
  turnId: string,
  pending: Pending,
  input: HostileDecision,
  count: (k: string) => void,
): Promise<string[]> {
  const before = await snapshot(env.h.client, turnId);
  const sent = await send(env, turnId, pending, input);
  count(`${input.via} ${sent.startsWith('refused') ? 'refused by Temporal' : sent}`);
  const out = await handled(env.h.client, turnId);
  const tag = `${input.via} ${input.label}`;
  if (input.expect === 'approves') return out.map((v) => `${v} (${tag})`);
  if (sent === 'accepted') out.push(`I4 the update accepted a decision it must refuse`);
  const after = await snapshot(env.h.client, turnId);
  out.push(...afterRejected(before, after, pending, 1));
  out.push(...(await historyOverhead(env.reader, turnId, before.historyLength, 1)));
  return out.map((v) => `${v} (${tag}, ${rawPayloadBytes(input.payload(pending))} bytes)`);
}

/** Every decision at once; then the same checks over the lot. */
async function flood(
  env: FuzzEnv,
  turnId: string,
  pending: Pending,
  inputs: HostileDecision[],
  count: (k: string) => void,
): Promise<string[]> {
  const before = await snapshot(env.h.client, turnId);
  // Updates queue up behind each other in a flood: each may take up to the settle bound to answer.
  const sent = await Promise.all(inputs.map((input) => send(env, turnId, pending, input, BUDGETS.settleMs)));
  sent.forEach((s, i) => count(`${inputs[i]!.via} ${s.startsWith('refused') ? 'refused by Temporal' : s}`));
  const signalFlood = inputs.every((i) => i.via === 'signal');
  const out = await handled(env.h.client, turnId, signalFlood);
  if (sent.includes('accepted'))
    out.push(`I4 ${sent.filter((s) => s === 'accepted').length} updates accepted decisions they must refuse`);
  const refusedByTemporal = sent.filter((s) => s.startsWith('refused'));
  if (refusedByTemporal.length) {
    out.push(
      `I1 ${refusedByTemporal.length} decisions refused by Temporal or unanswered within ${BUDGETS.settleMs} ms (${refusedByTemporal[0]})`,
    );
  }
  const after = await snapshot(env.h.client, turnId);
  out.push(...afterRejected(before, after, pending, inputs.length));
  out.push(...(await historyOverhead(env.reader, turnId, before.historyLength, inputs.length, signalFlood)));
  return out;
}

/** I2, I4, I5 after `n` decisions the turn had to refuse: still pending, state answers and barely grew. */
function afterRejected(before: Snapshot, after: Snapshot, pending: Pending, n: number): string[] {
  const out = stateViolations(after.answer);
  if (!after.answer.ok) return out;
  const call = after.answer.state.toolCalls.find((t) => t.id === pending.id);
  if (!after.answer.state.pendingApprovals.some((p) => p.id === pending.id) || call?.decision) {
    out.push(
      `I4 a decision the turn had to refuse decided ${pending.id} (${call?.status}, ${JSON.stringify(call?.decision)?.slice(0, 120)})`,
    );
  }
  if (before.answer.ok) {
    const growth = after.answer.bytes - before.answer.bytes;
    const allowed = n * BUDGETS.stateGrowthPerRejection;
    if (growth > allowed)
      out.push(`I5 state grew by ${growth} bytes for ${n} refused decision(s) (allowed ${allowed})`);
  }
  return out;
}

/** I3, I5: the new history events are the signals themselves plus at most a few KB each; none failed. */
async function historyOverhead(
  client: Client,
  turnId: string,
  fromLength: number,
  n: number,
  signalFlood = false,
): Promise<string[]> {
  let events;
  try {
    events = (await readHistory(client, turnId, BUDGETS.queryMs)).events.slice(fromLength);
  } catch (err) {
    return [`I5 history could not be read: ${errorText(err)}`];
  }
  const out: string[] = [];
  const failed = events.flatMap((e) => taskFailure(e) ?? []).filter((f) => !(signalFlood && forcedByServer(f)));
  if (failed.length) out.push(`I3 ${failed.length} WorkflowTaskFailed: ${failureText(failed[0]!)}`);
  const overhead = events.filter((e) => e.eventType !== SIGNALED).reduce((sum, e) => sum + eventBytes(e), 0);
  const allowed = n * BUDGETS.historyOverheadPerRejection;
  if (overhead > allowed)
    out.push(`I5 history grew by ${overhead} bytes beyond the signals themselves (allowed ${allowed})`);
  return out;
}
