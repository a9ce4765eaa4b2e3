import type { BenchResults } from '../results';
import { f, sectionHeader, table } from './format';

/** Section 7: history size by steps, its growth and the event types of the longest turn. */
export function historySection(r: BenchResults): string[] {
  const L: string[] = [];
  const h = r.history;
  if (sectionHeader('7. History size', h, L)) {
    const x = h.result;
    L.push(
      'Completed turns of N tool steps; `fetchHistory` → events, encoded protobuf bytes, and the JSON export',
      '(`temporal workflow show -o json` format). `callModel` input = the bytes of every model activity’s recorded',
      'input (the conversation sent to the model). The same turns on the fast path below them.',
      '',
      table(
        [
          'loop',
          'steps',
          'events',
          'events/step',
          'proto bytes',
          'bytes/step',
          'JSON bytes',
          'callModel input bytes',
          'share',
        ],
        [
          ...x.turns.map((t) => ['Tiller', t] as const),
          ...(x.fast?.turns ?? []).map((t) => ['Tiller, fast path', t] as const),
        ].map(([who, t]) => [
          who,
          t.steps,
          t.events,
          f(t.eventsPerStep),
          t.protoBytes,
          t.bytesPerStep,
          t.jsonBytes,
          t.modelInputBytes,
          `${f((t.modelInputBytes / t.protoBytes) * 100, 0)} %`,
        ]),
      ),
      '',
      `Marginal: ${f(x.marginalEventsPerStep)} events per extra step; ${x.marginalBytesPerStepFirst} bytes per extra step between the two shortest turns, ${x.marginalBytesPerStepLast} between the two longest.` +
        (x.fit
          ? ` Fit bytes ≈ ${x.fit.a} + ${x.fit.b}·n + ${x.fit.c}·n²; the n² term is ${f(x.fit.quadraticShareAtLongest * 100, 0)} % of the longest history. By this fit a turn reaches Temporal’s 10 MB history warning at about ${x.fit.stepsAt10MB} tool steps and the 50 MB limit (the workflow is terminated) at about ${x.fit.stepsAt50MB}.`
          : ''),
      `Growth: **${x.growth}**.` +
        (x.fast ? ` Fast path: ${f(x.fast.marginalEventsPerStep)} events per extra step.` : ''),
      '',
      ...[
        ['Tiller', x.turns],
        ['Tiller, fast path', x.fast?.turns ?? []],
      ].flatMap(([who, turns]) => {
        const longest = (turns as typeof x.turns)[(turns as typeof x.turns).length - 1];
        if (!longest) return [];
        const types = Object.entries(longest.eventTypes).sort((a, b) => b[1] - a[1]);
        return [`Events of the longest turn, ${who as string}: ${types.map(([k, v]) => `${k} ${v}`).join(', ')}.`, ''];
      }),
    );
  }
  return L;
}
