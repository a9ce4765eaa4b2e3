import type { BenchResults } from '../results';
import type { StreamVariant } from '../sections/streams';
import { f, table } from './format';

/** Section 10 (when run): live model text by heartbeats against `@temporalio/workflow-streams`. */
export function streamsSection(r: BenchResults): string[] {
  const L: string[] = [];
  const st = r.streams;
  if (st) {
    L.push('', '## 10. Live model text: heartbeats vs `@temporalio/workflow-streams`', '');
    if (!st.result) L.push(`failed: ${st.error ?? ''}`);
    else {
      const x = st.result;
      const row = (name: string, v: StreamVariant) => [
        name,
        v.received,
        v.messages,
        f(v.latencyMs.p50),
        f(v.latencyMs.p95),
        f(v.latencyMs.p99),
        f(v.extraHistoryEvents),
        f(v.extraHistoryEventsPerSecond),
      ];
      L.push(
        table(
          [
            'variant',
            'chunks received',
            'messages',
            'latency p50 ms',
            'p95',
            'p99',
            'extra history events per turn',
            'per second of streaming',
          ],
          [
            row('Tiller (heartbeat + describe)', x.tiller),
            row('workflow-streams (signal batches + poll update)', x.workflowStreams),
          ],
        ),
        '',
        `${x.runs} run(s) of ${x.chunks} chunks, one every ${x.chunkIntervalMs} ms. Latency: chunk written by the model (or published by the activity) → received by the follower. workflow-streams: ${f(x.workflowStreams.batches)} signal batches per run, ${f(x.workflowStreams.extraHistoryEventsPerBatch)} history events per batch. Extra events are counted against the same workflow streaming one chunk.`,
      );
    }
  }
  return L;
}
