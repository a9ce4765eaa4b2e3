/**
 * `defineAgent({ modelSettings })` against the dev server and the scripted model over HTTP: the settings
 * reach every model call's request as Chat Completions fields (`extraBody` last), streamed and not, and
 * the turn records them in `AGENT_STARTED` and its state.
 */
import { z } from 'zod';
import { defineAgent } from '../../src/agents/define';
import type { ModelSettings } from '../../src/core/model-settings';
import { defineTool } from '../../src/tools/define';
import { recordFixture } from '../support/fixtures';
import { createHarness, scriptByInput, type Harness } from '../support/harness';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h?.close();
});

const ping = defineTool({ name: 'ping', description: 'ping', input: z.object({}), execute: () => 'pong' });
const settings: ModelSettings = {
  temperature: 0.2,
  topP: 0.9,
  maxTokens: 300,
  toolChoice: 'auto',
  parallelToolCalls: false,
  reasoningEffort: 'low',
  seed: 42,
  stop: ['END', 'STOP'],
  extraBody: { top_k: 40, provider: { order: ['a', 'b'] } },
};
const expectedFields = {
  temperature: 0.2,
  top_p: 0.9,
  max_tokens: 300, // the scripted model is not api.openai.com
  tool_choice: 'auto',
  parallel_tool_calls: false,
  reasoning_effort: 'low',
  seed: 42,
  stop: ['END', 'STOP'],
  top_k: 40,
  provider: { order: ['a', 'b'] },
};
const agents = [
  defineAgent({ name: 'tuned', instructions: 'x', tools: ['ping'], modelSettings: settings }),
  defineAgent({
    name: 'forced',
    instructions: 'x',
    tools: ['ping'],
    stream: false,
    modelSettings: { toolChoice: 'ping', temperature: 0, extraBody: { temperature: 1 } },
  }),
  defineAgent({ name: 'default', instructions: 'x', tools: ['ping'] }),
];

test('the settings reach every model call of the agent, and the turn records them', async () => {
  h.model.setScript(
    scriptByInput({
      tuned: [{ toolCalls: [{ id: 'p1', name: 'ping', arguments: {} }] }, { echo: true }],
      forced: [{ toolCalls: [{ id: 'p2', name: 'ping', arguments: {} }] }, { echo: true }],
      plain: [{ echo: true }],
    }),
  );
  const [tuned, forced, plain] = [h.turnId('tuned'), h.turnId('forced'), h.turnId('plain')];
  await h.withWorker(
    async () => {
      await h.tiller.startTurn({ agent: 'tuned', input: 'tuned', turnId: tuned });
      await h.tiller.startTurn({ agent: 'forced', input: 'forced', turnId: forced });
      await h.tiller.startTurn({ agent: 'default', input: 'plain', turnId: plain });
      for (const id of [tuned, forced, plain]) expect((await h.tiller.result(id)).status).toBe('completed');

      // What the model received, on both calls of each turn (the echo answers with the request's settings).
      const sent = (input: string) => h.model.requests.filter((r) => r.body.messages[1]?.content === input);
      for (const r of sent('tuned')) expect(r.body).toEqual(expect.objectContaining(expectedFields));
      expect(sent('tuned').map((r) => r.stream)).toEqual([true, true]);
      expect(JSON.parse((await h.tiller.result(tuned)).output)).toEqual({ model: 'scripted', ...expectedFields });
      // A named tool choice becomes `{type: function}`; extraBody is merged last (its temperature wins).
      for (const r of sent('forced')) {
        expect(r.stream).toBe(false);
        expect(r.body.tool_choice).toEqual({ type: 'function', function: { name: 'ping' } });
        expect(r.body.temperature).toBe(1);
      }
      // An agent without settings sends none.
      expect(JSON.parse((await h.tiller.result(plain)).output)).toEqual({ model: 'scripted' });

      const state = await h.tiller.state(tuned);
      expect(state.modelSettings).toEqual(settings);
      const started = state.events.find((e) => e.type === 'AGENT_STARTED');
      expect(started).toEqual(expect.objectContaining({ modelSettings: settings }));
      expect((await h.tiller.state(plain)).modelSettings).toBeUndefined();
      await recordFixture(h.client, tuned, 'model-settings');
    },
    { agents, tools: [ping] },
  );
});

test('invalid settings stop the worker from starting, with the agent and the field named', async () => {
  const bad = { name: 'bad', instructions: 'x', tools: [], modelSettings: { temperature: 5 } };
  await expect(h.worker({ agents: [bad], tools: [] })).rejects.toThrow(
    /agent bad: invalid modelSettings: temperature: .*2/,
  );
});
