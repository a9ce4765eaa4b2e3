import type { BenchResults } from '../results';
import { f, pct, sectionHeader, table } from './format';

/** Section 9: the official integration, `@temporalio/openai-agents`, beside ours over the same turns. */
export function peerSection(r: BenchResults): string[] {
  const L: string[] = [];
  const peer = r.peer;
  if (sectionHeader('9. Peer: @temporalio/openai-agents', peer, L)) {
    const x = peer.result;
    L.push(
      'The official integration (`@temporalio/openai-agents` + `@openai/agents`, `scripts/bench/peer/`, its own',
      'node_modules) with the same tool as an activity (`activityAsTool`), the same instructions, the same dev',
      'server and scripted model, run in a process of its own; step times taken on the model server as for ours.',
      'It calls the model without streaming, so ours runs here both unary (like for like) and streamed (our',
      'default), with the tool as an activity and on the fast path, right before the peer, over the same turns.',
      '',
    );
    const line = (name: string, v: NonNullable<typeof x.peer> | undefined) =>
      v
        ? [
            name,
            ...pct(v.stepMs).slice(0, 4),
            f(v.clientMsPerStep),
            v.history.events,
            f(v.history.eventsPerStep),
            v.history.protoBytes,
          ]
        : [name, '—', '—', '—', '—', '—', '—', '—', '—'];
    L.push(
      table(
        [
          '',
          'p50 ms',
          'p95 ms',
          'p99 ms',
          'mean ms',
          'client ms/step',
          'history events',
          'events/step',
          'history bytes',
        ],
        [
          line('Tiller, unary', x.oursUnary),
          line('Tiller, streamed', x.oursStreamed),
          line('Tiller, fast path, unary', x.oursFastUnary),
          line('Tiller, fast path, streamed', x.oursFast),
          line('official integration', x.peer),
        ],
      ),
    );
    if (x.stepsPerTurn !== undefined) L.push('', `${x.turns} turn(s) of ${x.stepsPerTurn} steps each.`);
    if (x.versions) {
      L.push(
        '',
        `Versions: ${Object.entries(x.versions)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')}.`,
      );
    }
    if (!x.ran) L.push('', 'The peer did not run:', '', '```', x.error ?? '', '```');
  }
  return L;
}
