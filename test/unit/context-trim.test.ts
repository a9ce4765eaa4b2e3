/**
 * The context window's arithmetic since issue 35 (src/core/context.ts, src/core/token-estimate.ts): a
 * trim past the budget drops to its low-water target, and text unlike the conversation the calibration
 * was learned on (dense hex) is not counted at English's rate.
 */
import { planTrim, promptTokens } from '../../src/core/context';
import type { ChatMessage } from '../../src/core/spec';
import { classTokens } from '../../src/core/token-estimate';

const english = 'The capital of France is Paris, a city on the Seine with a long history. ';
const hex = (n: number) => Array.from({ length: n }, (_, i) => ((i * 2654435761) >>> 28).toString(16)).join('');

/** A conversation of `turns` earlier turns (user, assistant) and the input. */
function conversation(turns: number, input: string): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: 'system', content: 'Be brief.' }];
  for (let i = 0; i < turns; i++) {
    messages.push({ role: 'user', content: `Question ${i}: ${english}` }, { role: 'assistant', content: english });
  }
  messages.push({ role: 'user', content: input });
  return messages;
}

test('hex counts as many more tokens per character than English', () => {
  const en = english.repeat(7).slice(0, 519);
  const hx = hex(519);
  expect(classTokens(hx) / hx.length).toBeGreaterThan(0.5);
  expect(classTokens(en) / en.length).toBeLessThan(0.3);
});

test('a calibration learned on English does not hide a hex input: the class count is the floor', () => {
  const messages = conversation(4, hex(1_500));
  // ~3.3 characters a token, as SmolLM2 counts the English conversation.
  const calibration = { tokens: 300, chars: 1_000 };
  const calibrated = promptTokens(messages, [], calibration, false);
  const byClass = promptTokens(messages, [], calibration, true);
  expect(byClass).toBeGreaterThan(calibrated * 1.5);
});

test('past the budget, a trim drops to the target, not just under the budget', () => {
  const messages = conversation(20, 'next');
  const opts = { start: 1, history: 40, calibration: { tokens: 1, chars: 4 } };
  const total = promptTokens(messages, [], opts.calibration, false);
  const budget = Math.floor(total * 0.9);
  const justUnder = planTrim(messages, [], { ...opts, budget })!;
  const lowWater = planTrim(messages, [], { ...opts, budget, target: Math.floor(budget * 0.6) })!;
  expect(justUnder.tokensAfter).toBeGreaterThan(budget * 0.8);
  expect(lowWater.tokensAfter).toBeLessThanOrEqual(Math.floor(budget * 0.6));
  expect(lowWater.history).toBeGreaterThan(justUnder.history * 2);
  // Under the budget nothing is dropped, whatever the target.
  expect(planTrim(messages, [], { ...opts, budget: total, target: 10 })).toBeUndefined();
});
