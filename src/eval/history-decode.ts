/**
 * A turn's history as the facts eval and audit read from it: the turn's input, the spec `startTurn`
 * resolved, its result (or a failed turn's), and every `decide` update and signal with who sent it.
 * Payloads are decoded with the data converter's codecs (the encryption codec when configured) behind
 * the payload guard, and each is bounded: a history is untrusted input.
 */
import { defaultPayloadConverter, type DataConverter, type Payload } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { withPayloadGuard } from '../codec/guard';
import { DECIDE_MESSAGE } from '../core/caller';

type Event = temporal.api.history.v1.IHistoryEvent;

/** At most this many bytes per payload, and events per history; more is refused, not read. */
export const HISTORY_BOUNDS = { payloadBytes: 4 * 1024 * 1024, events: 100_000 } as const;

/** One `decide` update or signal as history recorded it. */
export interface DecideMessage {
  kind: 'update' | 'signal';
  /** The update's id (plaintext in history: the gateway and Slack use `gateway:` and `slack:` ids). */
  updateId?: string;
  /** The sending client's identity (`pid@host` by default; the Temporal CLI names itself; the UI sends none: ''). */
  identity?: string;
  /** The decision as sent (undefined when unreadable). */
  args: unknown;
  at?: string;
  /** An update's outcome: the recorded decision, or the workflow's refusal. Absent: still running, or a signal. */
  outcome?: { ok: true; value: unknown } | { ok: false; message: string };
}

/** What a turn's history says, decoded. */
export interface TurnHistory {
  workflowId: string;
  runId?: string;
  workflowType?: string;
  startedAt?: string;
  closedAt?: string;
  /** The first run's id (turns salt their approval digests with it). */
  firstRunId?: string;
  /** The patches the run's code marked (`patched(…)`), by id. */
  patches: string[];
  status: 'running' | 'completed' | 'failed' | 'cancelled' | 'terminated' | 'timed_out' | 'continued';
  /** The workflow's first argument (a `TurnInput` for a turn). */
  input: unknown;
  /** The `startTurn` activity's result (the resolved `AgentSpec` and hook failures). */
  started?: unknown;
  /** The turn's `TurnResult`: its completion, or the details of its failure. */
  result?: unknown;
  decides: DecideMessage[];
}

const iso = (t: Event['eventTime']): string | undefined => {
  if (!t) return undefined;
  const ms = Number(t.seconds ?? 0) * 1000 + Math.floor((t.nanos ?? 0) / 1e6);
  return Number.isFinite(ms) ? new Date(ms).toISOString() : undefined;
};

/** Decodes payloads with the converter's codecs (last first) and the default payload converter. */
export async function decodePayloads(
  converter: DataConverter,
  payloads: readonly Payload[] | null | undefined,
): Promise<unknown[]> {
  if (!payloads?.length) return [];
  let ps = payloads.map((p) =>
    (p.data?.length ?? 0) > HISTORY_BOUNDS.payloadBytes ? { metadata: { encoding: new Uint8Array() } } : p,
  ) as Payload[];
  for (const codec of [...(converter.payloadCodecs ?? [])].reverse()) ps = await codec.decode(ps);
  return ps.map((p) => {
    try {
      return defaultPayloadConverter.fromPayload(p);
    } catch {
      return undefined;
    }
  });
}

/** A payload the SDK's core writes itself (markers), read without the codec. */
function plain(p: Payload): unknown {
  try {
    return defaultPayloadConverter.fromPayload(p);
  } catch {
    return undefined;
  }
}

/** The patch id a marker's details carry: a string, or an object's `id` / `patch_id` (as SDK cores write it). */
function patchIdOf(values: unknown[]): string | undefined {
  for (const v of values) {
    if (typeof v === 'string') return v;
    const o = v && typeof v === 'object' ? (v as Record<string, unknown>) : {};
    const id = o.id ?? o.patch_id ?? o.patchId;
    if (typeof id === 'string') return id;
  }
  return undefined;
}

const STATUS: [keyof Event, TurnHistory['status']][] = [
  ['workflowExecutionCompletedEventAttributes', 'completed'],
  ['workflowExecutionFailedEventAttributes', 'failed'],
  ['workflowExecutionCanceledEventAttributes', 'cancelled'],
  ['workflowExecutionTerminatedEventAttributes', 'terminated'],
  ['workflowExecutionTimedOutEventAttributes', 'timed_out'],
  ['workflowExecutionContinuedAsNewEventAttributes', 'continued'],
];

/** The facts of one run's history; `converter` decodes its payloads (default: none besides the guard). */
export async function decodeTurnHistory(
  ids: { workflowId: string; runId?: string },
  history: temporal.api.history.v1.IHistory,
  converter: DataConverter = {},
): Promise<TurnHistory> {
  const dc = withPayloadGuard(converter);
  const events = (history.events ?? []).slice(0, HISTORY_BOUNDS.events);
  const first = async (p: { payloads?: Payload[] | null } | null | undefined) =>
    (await decodePayloads(dc, p?.payloads))[0];
  const out: TurnHistory = { ...ids, status: 'running', input: undefined, decides: [], patches: [] };
  const startTurnIds = new Set<string>();
  const updates = new Map<string, DecideMessage>();
  for (const e of events) {
    const started = e.workflowExecutionStartedEventAttributes;
    if (started) {
      out.workflowType = started.workflowType?.name ?? undefined;
      out.startedAt = iso(e.eventTime);
      out.input = await first(started.input);
      if (started.firstExecutionRunId) out.firstRunId = started.firstExecutionRunId;
    }
    const marker = e.markerRecordedEventAttributes;
    if (marker && /patch/i.test(marker.markerName ?? '') && out.patches.length < 1000) {
      const id = patchIdOf(Object.values(marker.details ?? {}).flatMap((p) => (p.payloads ?? []).map(plain)));
      if (id !== undefined) out.patches.push(id);
    }
    // A lean run (patch lean-turn) starts in a local activity: its marker carries the result.
    if (marker?.markerName === 'core_local_activity' && out.started === undefined) {
      const data = plain(marker.details?.data?.payloads?.[0] ?? {}) as { activity_type?: unknown } | undefined;
      if (data?.activity_type === 'startTurn') out.started = await first(marker.details?.result);
    }
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled?.activityType?.name === 'startTurn') startTurnIds.add(String(e.eventId));
    const completed = e.activityTaskCompletedEventAttributes;
    if (completed && startTurnIds.has(String(completed.scheduledEventId)) && out.started === undefined) {
      out.started = await first(completed.result);
    }
    const accepted = e.workflowExecutionUpdateAcceptedEventAttributes;
    if (accepted?.acceptedRequest?.input?.name === DECIDE_MESSAGE) {
      const meta = accepted.acceptedRequest.meta;
      const message: DecideMessage = {
        kind: 'update',
        ...(meta?.updateId && { updateId: meta.updateId }),
        // Kept when empty: the Temporal UI sends none (src/audit/channel.ts).
        identity: meta?.identity ?? '',
        args: await first(accepted.acceptedRequest.input.args),
        ...(iso(e.eventTime) !== undefined && { at: iso(e.eventTime) }),
      };
      if (meta?.updateId) updates.set(meta.updateId, message);
      out.decides.push(message);
    }
    const done = e.workflowExecutionUpdateCompletedEventAttributes;
    const waiting = done?.meta?.updateId ? updates.get(done.meta.updateId) : undefined;
    if (done && waiting) {
      waiting.outcome = done.outcome?.failure
        ? { ok: false, message: String(done.outcome.failure.message ?? '').slice(0, 2000) }
        : { ok: true, value: await first(done.outcome?.success) };
    }
    const signal = e.workflowExecutionSignaledEventAttributes;
    if (signal?.signalName === DECIDE_MESSAGE) {
      out.decides.push({
        kind: 'signal',
        identity: signal.identity ?? '',
        args: await first(signal.input),
        ...(iso(e.eventTime) !== undefined && { at: iso(e.eventTime) }),
      });
    }
    const closed = STATUS.find(([key]) => e[key]);
    if (closed) {
      out.status = closed[1];
      out.closedAt = iso(e.eventTime);
    }
    if (e.workflowExecutionCompletedEventAttributes) {
      out.result = await first(e.workflowExecutionCompletedEventAttributes.result);
    }
    const failure = e.workflowExecutionFailedEventAttributes?.failure;
    if (failure) out.result = await first(failure.applicationFailureInfo?.details);
  }
  return out;
}
