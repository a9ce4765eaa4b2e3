import type { BenchResults } from '../results';
import { SERVER_NAMES } from '../targets';
import { f, table } from './format';

/** Section 8: paused turns at scale: the worker's memory, listing, approving and completing them. */
export function pausedSection(r: BenchResults): string[] {
  const L: string[] = [];
  L.push('', '## 8. Paused turns at scale', '');
  const pRows: (string | number)[][] = [];
  for (const p of r.passes) {
    if (!p.paused) continue;
    if (!p.paused.result) {
      pRows.push([SERVER_NAMES[p.storage], `failed: ${p.paused.error ?? ''}`]);
      continue;
    }
    for (const x of p.paused.result) {
      pRows.push([
        SERVER_NAMES[p.storage],
        `${x.cache} (${x.maxCachedWorkflows})`,
        x.turns,
        f(x.startAllS),
        f(x.allPausedS),
        `${f(x.rssIdleMiB, 0)} → ${f(x.rssPausedMiB, 0)} (heap ${f(x.heapPausedMiB, 0)})`,
        x.cachedWhilePaused,
        // Only meaningful when the cache holds most of the growth.
        x.cachedWhilePaused >= 100 ? f((x.rssPausedMiB - x.rssIdleMiB) / x.cachedWhilePaused, 2) : '—',
        `${f(x.listMs, 0)} ms (${x.listed})`,
        `${f(x.countMs, 0)} ms`,
        f(x.approveAllS),
        f(x.completeAllS),
        `${x.completed}/${x.turns}`,
        f(x.rssAfterMiB, 0),
        x.rssPeakMiB !== undefined ? f(x.rssPeakMiB, 0) : '—',
      ]);
    }
  }
  L.push(
    'K turns that each pause on an approval, served by a worker in its own process. RSS of that process (after a',
    'GC of its main thread: the workflow threads collect on their own) idle and with all K waiting, and the highest',
    'RSS sampled every 100 ms over the whole pass (peak: what the worker takes between collections). The list is',
    '`TillerClient.pending()` (visibility query on `TillerStatus = "awaiting_approval"`) over all K; then every turn',
    'is approved (50 updates in flight) and each result is checked: completed, with the gated tool run.',
    '',
    pRows.length
      ? table(
          [
            'server',
            'cache (max)',
            'turns',
            'start all s',
            'all paused s',
            'worker RSS MiB idle → paused',
            'cached',
            '(paused − idle) ÷ cached, MiB',
            'list',
            'count',
            'approve all s',
            'all complete s',
            'completed',
            'RSS after MiB',
            'peak RSS MiB',
          ],
          pRows,
        )
      : '_Not run in this invocation._',
  );
  return L;
}
