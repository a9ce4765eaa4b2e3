/**
 * History: events and bytes per tool step, and the whole history's size for turns of several
 * lengths. Bytes are the encoded protobuf size of the history (what the server stores and sends a
 * replaying worker) and the length of its JSON export (`temporal workflow show -o json` format).
 * The share of `callModel` inputs shows whether each model call re-records the whole conversation.
 * The same turn lengths again on the fast path (a read-only tool: a local activity, one marker).
 */
import { randomUUID } from 'node:crypto';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { temporal } from '@temporalio/proto';
import { AGENT, FAST_AGENT, planInput, READ_STEP_TOOL } from '../fixture';
import type { BenchEnv } from '../env';
import { quadraticThrough, round } from '../stats';

export interface HistoryTurn {
  steps: number;
  events: number;
  protoBytes: number;
  jsonBytes: number;
  eventsPerStep: number;
  bytesPerStep: number;
  /** Bytes of the `callModel` activity inputs recorded in ActivityTaskScheduled events. */
  modelInputBytes: number;
  eventTypes: Record<string, number>;
}

export interface HistoryResult {
  turns: HistoryTurn[];
  /** Events added per extra tool step, between the shortest and the longest turn. */
  marginalEventsPerStep: number;
  /** Bytes added per extra step, in the first and the last interval between turn lengths. */
  marginalBytesPerStepFirst: number;
  marginalBytesPerStepLast: number;
  /** bytes ≈ a + b·n + c·n² through the three sizes (when three are measured). */
  fit?: {
    a: number;
    b: number;
    c: number;
    quadraticShareAtLongest: number;
    /** Steps at which the fitted history reaches Temporal's default 10 MB warning and 50 MB hard limit. */
    stepsAt10MB: number;
    stepsAt50MB: number;
  };
  growth: 'linear' | 'superlinear';
  /** The same turn lengths on the fast path. */
  fast?: { turns: HistoryTurn[]; marginalEventsPerStep: number };
}

const EventType = temporal.api.enums.v1.EventType;

/** Smallest n with a + b·n + c·n² ≥ bytes. */
function stepsAt(q: { a: number; b: number; c: number }, bytes: number): number {
  if (q.c <= 0) return Math.ceil((bytes - q.a) / q.b);
  return Math.ceil((-q.b + Math.sqrt(q.b * q.b - 4 * q.c * (q.a - bytes))) / (2 * q.c));
}

export async function runHistory(env: BenchEnv, opts: { steps: number[] }): Promise<HistoryResult> {
  const { taskQueue, tiller } = env.queue('history');
  const worker = await env.worker(taskQueue);
  const run = (fast: boolean) => async () => {
    const out: HistoryTurn[] = [];
    for (const steps of opts.steps) {
      const key = `history-${randomUUID()}`;
      const input = planInput({ key, steps, ...(fast && { tool: READ_STEP_TOOL }) });
      await tiller.startTurn({ agent: fast ? FAST_AGENT : AGENT, input, turnId: key });
      const result = await tiller.result(key);
      if (result.status !== 'completed') throw new Error(`history turn ${key} ended ${result.status}`);
      env.rec.requests.delete(key);
      const history = await env.client.workflow.getHandle(key).fetchHistory();
      const events = history.events ?? [];
      const protoBytes = temporal.api.history.v1.History.encode(history).finish().length;
      const jsonBytes = Buffer.byteLength(historyToJSON(history));
      const eventTypes: Record<string, number> = {};
      let modelInputBytes = 0;
      for (const e of events) {
        const name = (EventType[e.eventType ?? 0] ?? 'UNKNOWN').replace(/^EVENT_TYPE_/, '');
        eventTypes[name] = (eventTypes[name] ?? 0) + 1;
        const scheduled = e.activityTaskScheduledEventAttributes;
        if (scheduled?.activityType?.name === 'callModel') {
          for (const p of scheduled.input?.payloads ?? []) modelInputBytes += p.data?.length ?? 0;
        }
      }
      out.push({
        steps,
        events: events.length,
        protoBytes,
        jsonBytes,
        eventsPerStep: round(events.length / steps, 2),
        bytesPerStep: Math.round(protoBytes / steps),
        modelInputBytes,
        eventTypes,
      });
    }
    return out;
  };
  const [turns, unsorted] = await worker.runUntil(async () => [await run(false)(), await run(true)()] as const);
  const fastTurns = [...unsorted].sort((a, b) => a.steps - b.steps);
  const marginal = (ts: HistoryTurn[]) => {
    const [a, b] = [ts[0]!, ts[ts.length - 1]!];
    return round((b.events - a.events) / Math.max(1, b.steps - a.steps), 2);
  };
  const sorted = [...turns].sort((a, b) => a.steps - b.steps);
  const hi = sorted[sorted.length - 1]!;
  const per = (a: HistoryTurn, b: HistoryTurn) => (b.protoBytes - a.protoBytes) / Math.max(1, b.steps - a.steps);
  const first = sorted.length >= 2 ? per(sorted[0]!, sorted[1]!) : Number.NaN;
  const last = sorted.length >= 2 ? per(sorted[sorted.length - 2]!, hi) : Number.NaN;
  let fit: HistoryResult['fit'];
  if (sorted.length === 3) {
    const q = quadraticThrough(sorted.map((t) => [t.steps, t.protoBytes] as [number, number]));
    fit = {
      a: Math.round(q.a),
      b: round(q.b, 1),
      c: round(q.c, 3),
      quadraticShareAtLongest: round((q.c * hi.steps * hi.steps) / hi.protoBytes, 3),
      stepsAt10MB: stepsAt(q, 10 * 2 ** 20),
      stepsAt50MB: stepsAt(q, 50 * 2 ** 20),
    };
  }
  return {
    turns: sorted,
    marginalEventsPerStep: marginal(sorted),
    marginalBytesPerStepFirst: Math.round(first),
    marginalBytesPerStepLast: Math.round(last),
    ...(fit && { fit }),
    // Linear growth adds the same bytes per step late in the turn as early; allow 25 % for noise in sizes.
    growth: last <= first * 1.25 ? 'linear' : 'superlinear',
    fast: { turns: fastTurns, marginalEventsPerStep: marginal(fastTurns) },
  };
}
