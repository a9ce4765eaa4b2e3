/** `tiller run`'s lines for the events of handoffs, guardrails, the context window and estimated usage. */
import { formatEvent } from '../../src/cli/format';
import type { TurnEvent } from '../../src/core/state/events';

const at = { seq: 1, at: '2026-12-04T00:00:00.000Z' };

test('each new event has a line of its own, not the JSON fallback', () => {
  const lines = (
    [
      { type: 'HANDOFF', toolCallId: 'c1', from: 'triage', to: 'billing', reason: 'a refund' },
      { type: 'GUARDRAIL_RAN', name: 'no_secrets', kind: 'input', tripped: true },
      { type: 'GUARDRAIL_RAN', name: 'no_pii', kind: 'output', tripped: false, durationMs: 3 },
      {
        type: 'GUARDRAIL_RAN',
        name: 'topic_check',
        kind: 'input',
        tripped: true,
        agent: 'topic_judge',
        error: `the guardrail agent's answer is not JSON: ${'x'.repeat(500)}`,
      },
      { type: 'CONTEXT_TRIMMED', strategy: 'summarize', dropped: 12, tokensBefore: 4100, tokensAfter: 2300 },
      {
        type: 'MODEL_CALLED',
        call: 1,
        usage: { inputTokens: 20, outputTokens: 5, totalTokens: 25 },
        durationMs: 12,
        toolCalls: [],
        usageEstimated: true,
        finishReason: 'length',
      },
    ] as const
  ).map((e) => formatEvent({ ...at, ...e } as TurnEvent));
  expect(lines).toEqual([
    '⇢ handed off: triage → billing (a refund)',
    '✗ input guardrail no_secrets tripped',
    '✓ output guardrail no_pii passed',
    `✗ input guardrail topic_check (agent topic_judge) tripped: the guardrail agent's answer is not JSON: ${'x'.repeat(157)}…`,
    '✂ context window: 12 oldest messages summarised · ~4100 → ~2300 tokens',
    '▸ model call 1 · ~20+5 tokens (estimated: the server reported none) · 12 ms · cut at the token limit',
  ]);
});
