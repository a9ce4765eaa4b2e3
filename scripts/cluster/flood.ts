/**
 * A signal flood against the secured cluster, to measure what its rate limits let through
 * (deploy/temporal/dynamicconfig.yaml: frontend.namespaceRPS, its burst ratio, frontend.rps,
 * history.maximumSignalsPerExecution): `concurrency` callers send `decide` signals back to back for
 * `seconds`, and every answer is counted by its gRPC code. ResourceExhausted (8) is the rate limiter
 * or the per-run signal cap refusing; a refusal costs the server no history.
 */
import { Client, Connection } from '@temporalio/client';
import { TillerClient } from '../../src/client';
import { decideHeadersInterceptor, tokenIdentity } from '../../src/client/caller';
import type { TemporalSettings } from '../../src/client/connect';

export interface FloodResult {
  seconds: number;
  sent: number;
  accepted: number;
  /** ResourceExhausted, by the server's message (the rate limiter or the per-run signal cap). */
  exhausted: Record<string, number>;
  /** Any other refusal, by gRPC code or message. */
  other: Record<string, number>;
  acceptedPerSecond: number;
  sentPerSecond: number;
}

const RESOURCE_EXHAUSTED = 8;

function classify(err: unknown): { exhausted: boolean; key: string } {
  const e = err as { code?: number; details?: string; message?: string; cause?: { code?: number; details?: string } };
  const code = e.code ?? e.cause?.code;
  const message = (e.cause?.details ?? e.details ?? e.message ?? String(err)).slice(0, 80);
  return { exhausted: code === RESOURCE_EXHAUSTED, key: code === undefined ? message : `${code}: ${message}` };
}

/** Floods `turnId` with `decide` signals from `client` (its token's subject) for `seconds`. */
export async function floodSignals(
  client: TillerClient,
  turnId: string,
  opts: { seconds: number; concurrency: number; decision?: unknown },
): Promise<FloodResult> {
  const decision = opts.decision ?? { id: 'flood', approved: false, reason: 'flood' };
  const result: FloodResult = {
    seconds: opts.seconds,
    sent: 0,
    accepted: 0,
    exhausted: {},
    other: {},
    acceptedPerSecond: 0,
    sentPerSecond: 0,
  };
  const started = Date.now();
  const until = started + opts.seconds * 1000;
  const caller = async () => {
    while (Date.now() < until) {
      result.sent++;
      try {
        await client.signalDecision(turnId, decision);
        result.accepted++;
      } catch (err) {
        const { exhausted, key } = classify(err);
        const bucket = exhausted ? result.exhausted : result.other;
        bucket[key] = (bucket[key] ?? 0) + 1;
      }
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, caller));
  const elapsed = (Date.now() - started) / 1000;
  result.acceptedPerSecond = Math.round(result.accepted / elapsed);
  result.sentPerSecond = Math.round(result.sent / elapsed);
  return result;
}

/**
 * A `TillerClient` for `settings` that does not retry ResourceExhausted (the SDK's default connection
 * retries it with backoff, which turns a refusal into a wait): the flood then sees each refusal.
 */
export async function clientWithoutRetries(settings: TemporalSettings, token: string): Promise<TillerClient> {
  const connection = await Connection.connect({ ...settings.connectionOptions, interceptors: [] });
  const identity = tokenIdentity(token);
  return new TillerClient(
    new Client({
      connection,
      namespace: settings.namespace,
      ...(identity && { interceptors: { workflow: [decideHeadersInterceptor(identity)] } }),
    }),
    settings.taskQueue,
  );
}
