/**
 * Tiller's counters, from the turn's events, on the workflow metric meter (replay-safe: the SDK
 * skips metrics while replaying). With `TILLER_METRICS_ADDRESS` they are scraped with the Temporal
 * runtime's metrics from the worker's Prometheus endpoint.
 */
import type { MetricCounter } from '@temporalio/common';
import { metricMeter } from '@temporalio/workflow';
import type { TurnEventBody } from '../core/state/events';
import type { RecordedDecision } from '../core/schemas';

let counters:
  | {
      requested: MetricCounter;
      decided: MetricCounter;
      timedOut: MetricCounter;
      denials: MetricCounter;
      tokens: MetricCounter;
    }
  | undefined;

function meter() {
  return (counters ??= {
    requested: metricMeter.createCounter('tiller_approvals_requested', 'calls', 'Tool calls that asked a human'),
    decided: metricMeter.createCounter(
      'tiller_approvals_decided',
      'calls',
      'Decisions a person made (update or signal decide)',
    ),
    timedOut: metricMeter.createCounter('tiller_approvals_timed_out', 'calls', 'Approvals that expired unanswered'),
    denials: metricMeter.createCounter('tiller_denials', 'calls', 'Tool calls denied, by source: human, hook, timeout'),
    tokens: metricMeter.createCounter('tiller_tokens', 'tokens', 'Model tokens used'),
  });
}

/** A decision a person sent (update or signal `decide`), not a trust grant or the approval hook. */
function isHuman(decision: RecordedDecision | undefined): boolean {
  return decision?.via === 'update' || decision?.via === 'signal';
}

function denialSource(decision: RecordedDecision | undefined): 'human' | 'hook' | 'policy' {
  if (isHuman(decision)) return 'human';
  return decision?.via === 'hook' ? 'hook' : 'policy';
}

/** Counts what an event means for the metrics; `agent` and `model` label every counter. */
export function countEvent(body: TurnEventBody, labels: { agent: string; model: string }): void {
  const m = meter();
  const agent = { agent: labels.agent };
  switch (body.type) {
    case 'APPROVAL_REQUESTED':
      m.requested.add(1, { ...agent, tool: body.tool });
      break;
    case 'TOOL_APPROVED':
      // Trust grants and the approval hook approve too; only a person's decision counts as decided.
      if (isHuman(body.decision)) m.decided.add(1, { ...agent, tool: body.tool, approved: 'true' });
      break;
    case 'TOOL_DENIED':
      if (isHuman(body.decision)) m.decided.add(1, { ...agent, tool: body.tool, approved: 'false' });
      m.denials.add(1, { ...agent, tool: body.tool, source: denialSource(body.decision) });
      break;
    case 'APPROVAL_TIMED_OUT':
      m.timedOut.add(1, { ...agent, tool: body.tool });
      m.denials.add(1, { ...agent, tool: body.tool, source: 'timeout' });
      break;
    case 'MODEL_CALLED':
      m.tokens.add(body.usage.inputTokens, { ...agent, model: labels.model, kind: 'input' });
      m.tokens.add(body.usage.outputTokens, { ...agent, model: labels.model, kind: 'output' });
      break;
  }
}
