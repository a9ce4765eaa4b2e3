import type { BenchResults, StoragePass } from '../results';
import { SERVER_NAMES, variantName } from '../targets';
import { f } from './format';

/** Computed read-outs of this run: where a step's time goes, and the limits of the set-up. */
export function notesSection(r: BenchResults): string[] {
  const out = ['', '## Reading the numbers', ''];
  const fl = r.floor?.result;
  const durable = (s: StoragePass['storage']) => r.passes.find((p) => p.storage === s)?.durable?.result;
  const stock = durable('stock');
  const tuned = durable('memory') ?? durable('sqlite');
  if (stock && tuned) {
    const sp = stock.phases.baseline;
    const tp = tuned.phases.baseline;
    const tf = tuned.phases.fast;
    out.push(
      `- **Where a step's time goes** (this run's measurements). In-process, without Temporal, a tool step takes` +
        ` ${f(fl?.stepMs.p50)} ms. The bare Temporal loop takes ${f(stock.baseline.stepMs.p50)} ms p50 on the stock dev server and` +
        ` ${f(tuned.baseline.stepMs.p50)} ms on the tuned one; the two servers differ only in the three queue readers' \`MaxPollRPS\`` +
        ` (20 → 1000). The server's event timestamps for the bare loop: a workflow task waited` +
        ` ${f(sp.workflowTaskScheduleToStartP50)} ms p50 from scheduled to started on the stock server and ${f(tp.workflowTaskScheduleToStartP50)} ms on the tuned` +
        ` one, ${f(sp.workflowTasksPerStep)} workflow tasks per step; an activity took ${f(sp.activityScheduleToCompleteP50)} vs ${f(tp.activityScheduleToCompleteP50)} ms from scheduled to completed` +
        ` — these recorded phases differ by far less than the steps do (${f(stock.baseline.stepMs.p50 - tuned.baseline.stepMs.p50)} ms), so most of the stock server's extra time per step` +
        ` lies outside what history timestamps record (this bench does not measure where).` +
        ` On the tuned server: ${f(tp.workflowTaskStartToCompleteP50)} ms p50 per workflow task` +
        ` from started to completed, and ${f(tuned.baseline.cpu.serverMs)} ms server + ${f(tuned.baseline.cpu.benchMs)} ms bench-process CPU per step` +
        ` for the bare loop (${f(tuned.cpu.serverMs)} + ${f(tuned.cpu.benchMs)} ms for Tiller) on this 2-core machine.` +
        ` Tiller takes ${f(tuned.stepMs.p50)} ms there` +
        (tuned.fast
          ? `; on the fast path ${f(tuned.fast.stepMs.p50)} ms, with ${f(tf?.workflowTasksPerStep)} workflow tasks per step (the read-only tool runs as a local activity inside the workflow task that received the model's answer)`
          : '') +
        '.',
    );
  }
  for (const p of r.passes) {
    const d = p.durable?.result;
    if (!d) continue;
    out.push(
      `- **${SERVER_NAMES[p.storage]}**: bare loop ${f(d.baseline.stepMs.p50)} ms, Tiller ${f(d.stepMs.p50)} ms` +
        (d.fast ? `, fast path ${f(d.fast.stepMs.p50)} ms` : '') +
        ` p50 per tool step; CPU per step (server + bench) ${f(d.baseline.cpu.serverMs + d.baseline.cpu.benchMs)}, ${f(d.cpu.serverMs + d.cpu.benchMs)}` +
        (d.fast ? `, ${f(d.fast.cpu.serverMs + d.fast.cpu.benchMs)}` : '') +
        ' ms.' +
        (() => {
          const tp = p.throughput?.result?.filter((l) => l.concurrency === 50) ?? [];
          return tp
            .map(
              (l) =>
                ` With 50 concurrent turns (${variantName(l.variant).short}) a step costs ${f(l.cpu.serverMs)} + ${f(l.cpu.benchMs)} ms CPU: two fully free cores allow about ${f(2000 / (l.cpu.serverMs + l.cpu.benchMs), 0)} tool steps/s (measured ${f(l.stepsPerS, 1)}).`,
            )
            .join('');
        })(),
    );
  }
  const h = r.history?.result;
  if (h) {
    const longest = h.turns[h.turns.length - 1]!;
    const share = f((longest.modelInputBytes / longest.protoBytes) * 100, 0);
    out.push(
      h.growth === 'linear'
        ? `- **History**: model calls record a reference to the conversation (\`{count, digest}\`; the activity rebuilds the messages from its own copy, checked against the digest, or reads them with the \`conversation\` query), so the \`callModel\` inputs are ${share} % of a ${longest.steps}-step history (${longest.protoBytes} bytes) and the bytes per step stay flat (${h.growth}).`
        : `- **History**: the \`callModel\` inputs make up ${share} % of a ${longest.steps}-step history (${longest.protoBytes} bytes) and the bytes per step grow with the step index (${h.growth}).`,
    );
  }
  const qPass =
    r.passes.find((p) => p.storage === 'memory' && p.query?.result) ?? r.passes.find((p) => p.query?.result);
  const q = qPass?.query?.result;
  if (q) {
    const sized = q.baseline.sized;
    out.push(
      `- **Queries** (${SERVER_NAMES[qPass!.storage]}): a bare query answering two numbers takes ${f(q.baseline.cached.p50)} ms p50;` +
        (sized
          ? ` the same bare workflow answering ${sized.jsonBytes} bytes of JSON takes ${f(sized.cached.p50)} ms, and \`state\` (${q.stateJsonBytes} bytes) ${f(q.cached.p50)} ms —` +
            ` so what \`state\` costs beyond a bare query is the size of its answer, not Tiller (the answer is kept as a payload until the next event).`
          : ` \`state\` (${q.stateJsonBytes} bytes) takes ${f(q.cached.p50)} ms.`) +
        (q.summary
          ? ` \`summary\` (${q.summaryJsonBytes ?? '?'} bytes) takes ${f(q.summary.cached.p50)} ms, about a bare query: what the CLI, gateway, SSE and inbox poll.`
          : '') +
        ` Evicted, every query replays the history first: ${f(q.evicted.p50)} ms for Tiller's ${q.historyEvents} events against ${f(q.baseline.evicted.p50)} ms for the bare loop's ${q.baseline.historyEvents}` +
        ` (scripts/bench/replay-cost.ts replays these histories in-process to see why).`,
    );
  }
  const pausedMax = Math.max(0, ...r.passes.flatMap((p) => p.paused?.result?.map((x) => x.turns) ?? []));
  if (pausedMax < 10_000) {
    out.push(
      `- **Not measured here**: the issue’s 10,000 paused turns (this run paused ${pausedMax}; run with \`--paused 10000\`).`,
    );
  }
  out.push(
    '- **Peer set-up**: `@temporalio/openai-agents` 1.23.0 with `@openai/agents-core` 0.11.6 (webpack 5.113) fails',
    '  to load its workflow bundle (`Automatic publicPath is not supported in this browser`: agents-core’s dynamic',
    '  `import()` becomes a webpack chunk); `scripts/bench/peer/run.ts` bundles with `dynamicImportMode: "eager"` to run it.',
  );
  return out;
}
