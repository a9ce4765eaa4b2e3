import type { BenchResults } from '../results';
import { SERVER_NAMES } from '../targets';
import { f, loadOf, table } from './format';

/** Section 5: approval → resume, Tiller against the Temporal baseline, per server and cache. */
export function approvalSection(r: BenchResults): string[] {
  const L: string[] = [];
  L.push('', '## 5. Approval → resume', '');
  const apRows: (string | number)[][] = [];
  for (const p of r.passes) {
    if (!p.approval) continue;
    if (!p.approval.result) {
      apRows.push([SERVER_NAMES[p.storage], `failed: ${p.approval.error ?? ''}`]);
      continue;
    }
    for (const a of p.approval.result) {
      for (const [who, x] of [
        ['Tiller', a],
        ['Temporal baseline', a.baseline],
      ] as const) {
        apRows.push([
          SERVER_NAMES[p.storage],
          `${a.cache} (maxCachedWorkflows ${a.maxCachedWorkflows})`,
          who,
          f(x.ackToToolStartMs.p50),
          f(x.ackToToolStartMs.p99),
          f(x.sendToToolStartMs.p50),
          f(x.sendToToolStartMs.p99),
          f(x.updateRoundTripMs.p50),
          x.approvals,
          loadOf(p.approval),
        ]);
      }
    }
  }
  L.push(
    'A turn pauses on a gated tool; the bench sends the `decide` update once the turn is idle. Measured from the',
    'update’s acknowledgement at the client (`executeUpdate` resolved) to the tool’s `execute` starting (same',
    'process, `performance.now()`), and from sending the update. Turns of 20 sequential approvals. A negative',
    'ack → start means the tool had started before the acknowledgement reached the client. The Temporal baseline',
    'is a bare workflow that waits on an update (with a validator) and then runs an activity; its turns alternate',
    'with Tiller’s.',
    '',
    apRows.length
      ? table(
          [
            'server',
            'cache',
            'who',
            'ack → tool p50 ms',
            'ack → tool p99 ms',
            'send → tool p50 ms',
            'send → tool p99 ms',
            'update round trip p50 ms',
            'approvals',
            'load',
          ],
          apRows,
        )
      : '_Not run in this invocation._',
  );
  return L;
}
