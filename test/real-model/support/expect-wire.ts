/**
 * Assertions that hold for any model: what Tiller recorded of each model call is what the real server
 * sent (its tool calls, its own usage), whatever the words.
 */
import type { TurnState } from '../../../src/core/state';
import { serverUsage, type Exchange } from './wire-tap';

/** The tool calls a response carried: a stream's deltas assembled as the OpenAI SDK does (a name is set, not appended), or the JSON message's. */
export function serverToolCalls(e: Exchange): { name: string; args: unknown }[] {
  if (!e.chunks.length) {
    const message = (JSON.parse(e.text) as { choices: { message: { tool_calls?: any[] } }[] }).choices[0]?.message;
    return (message?.tool_calls ?? []).map((c) => ({ name: c.function.name, args: JSON.parse(c.function.arguments) }));
  }
  const calls: { name: string; args: string }[] = [];
  for (const chunk of e.chunks) {
    for (const d of chunk.choices?.[0]?.delta?.tool_calls ?? []) {
      const call = (calls[d.index ?? 0] ??= { name: '', args: '' });
      if (d.function?.name) call.name = d.function.name;
      call.args += d.function?.arguments ?? '';
    }
  }
  return calls.map((c) => ({ name: c.name, args: JSON.parse(c.args) }));
}

type ModelCalled = Extract<TurnState['events'][number], { type: 'MODEL_CALLED' }>;

/** The turn's MODEL_CALLED events match the server's responses one by one: tool calls and usage. */
export function expectRecordedAsServed(state: TurnState, exchanges: Exchange[]): void {
  const called = state.events.filter((e): e is ModelCalled => e.type === 'MODEL_CALLED');
  expect(exchanges.map((e) => e.status)).toEqual(exchanges.map(() => 200));
  expect(called).toHaveLength(exchanges.length);
  called.forEach((event, i) => {
    const served = exchanges[i]!;
    expect(event.toolCalls.map((c) => ({ name: c.name, args: c.args }))).toEqual(serverToolCalls(served));
    const usage = serverUsage(served);
    expect(usage).toEqual(expect.objectContaining({ prompt_tokens: expect.any(Number) }));
    expect(event.usage).toMatchObject({ inputTokens: usage!.prompt_tokens, outputTokens: usage!.completion_tokens });
    expect(event).not.toHaveProperty('usageEstimated');
  });
}

/** The turn's usage is the sum of the server's own usage over its calls. */
export function expectUsageAsServed(usage: Record<string, unknown>, exchanges: Exchange[]): void {
  const served = exchanges.map((e) => serverUsage(e));
  expect(served.every((u) => u !== undefined)).toBe(true);
  const input = served.reduce((n, u) => n + u!.prompt_tokens, 0);
  const output = served.reduce((n, u) => n + u!.completion_tokens, 0);
  expect(input).toBeGreaterThan(0);
  expect(usage).toEqual({
    inputTokens: input,
    outputTokens: output,
    totalTokens: input + output,
    modelCalls: exchanges.length,
  });
}
