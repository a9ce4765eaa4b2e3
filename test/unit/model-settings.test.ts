/** `modelSettings`: checked when an agent is defined, and turned into Chat Completions fields. */
import { defineAgent, type AgentDefinition } from '../../src/agents/define';
import { chatCompletionFields, maxTokensFieldFor, type ModelSettings } from '../../src/core/model-settings';

const agent = (modelSettings: unknown, more: Partial<AgentDefinition> = {}) =>
  defineAgent({
    name: 'a',
    instructions: 'x',
    tools: ['lookup'],
    modelSettings: modelSettings as ModelSettings,
    ...more,
  });

test('valid settings are kept, parsed', () => {
  const settings: ModelSettings = {
    temperature: 0.2,
    topP: 0.9,
    maxTokens: 300,
    toolChoice: 'lookup',
    parallelToolCalls: false,
    reasoningEffort: 'low',
    seed: 7,
    stop: ['END'],
    extraBody: { top_k: 40 },
  };
  expect(agent(settings).modelSettings).toEqual(settings);
  expect(agent({ toolChoice: 'required' }).modelSettings).toEqual({ toolChoice: 'required' });
});

test.each([
  [{ temperature: 3 }, /agent a: invalid modelSettings: temperature: .*2/],
  [{ topP: -0.1 }, /topP/],
  [{ maxTokens: 0 }, /maxTokens/],
  [{ maxTokens: 1.5 }, /maxTokens/],
  [{ max_tokens: 100 }, /max_tokens/],
  [{ reasoningEffort: 'extreme' }, /reasoningEffort/],
  [{ stop: ['a', 'b', 'c', 'd', 'e'] }, /stop/],
  [{ stop: '' }, /stop/],
  [{ seed: 1.5 }, /seed/],
  [{ toolChoice: 'not a name!' }, /toolChoice: must be "auto", "none", "required" or a tool name/],
  [{ extraBody: { messages: [] } }, /extraBody: may not set messages \(Tiller sets them\)/],
  [{ extraBody: { x: 'y'.repeat(20_000) } }, /extraBody: is \d+ characters of JSON, more than 16000/],
  [{ extraBody: { f: () => 1 } }, /extraBody: is not plain JSON \(a value of type function\)/],
  [{ extraBody: { n: [Number.NaN] } }, /extraBody: is not plain JSON \(a non-finite number\)/],
  [{ extraBody: { d: new Date() } }, /extraBody: is not plain JSON \(an object that is not plain\)/],
])('invalid settings are refused with a clear error (%#)', (settings, message) => {
  expect(() => agent(settings)).toThrow(message);
});

test('a toolChoice naming a tool the agent does not have is refused', () => {
  expect(() => agent({ toolChoice: 'delete_everything' })).toThrow(
    'agent a: modelSettings.toolChoice names delete_everything, which is not one of its tools',
  );
  expect(agent({ toolChoice: 'srv__t' }, { mcp: ['srv'] }).modelSettings).toEqual({ toolChoice: 'srv__t' });
});

test('the Chat Completions fields, extraBody merged last; the max tokens field as the endpoint needs', () => {
  expect(
    chatCompletionFields(
      { temperature: 0.2, topP: 0.5, maxTokens: 10, toolChoice: 'lookup', seed: 1, extraBody: { temperature: 0.9 } },
      'max_completion_tokens',
    ),
  ).toEqual({
    temperature: 0.9,
    top_p: 0.5,
    max_completion_tokens: 10,
    tool_choice: { type: 'function', function: { name: 'lookup' } },
    seed: 1,
  });
  expect(chatCompletionFields({ toolChoice: 'none', maxTokens: 5 })).toEqual({ tool_choice: 'none', max_tokens: 5 });
  expect(chatCompletionFields(undefined)).toEqual({});
  expect(maxTokensFieldFor(undefined)).toBe('max_completion_tokens');
  expect(maxTokensFieldFor('https://api.openai.com/v1')).toBe('max_completion_tokens');
  expect(maxTokensFieldFor('http://127.0.0.1:4000/v1')).toBe('max_tokens');
});
