/**
 * The loopback stand-ins for a model server keep an idle connection open longer than any client
 * keeps one in its pool (undici's fetch drops an idle socket after the server's hint less a second;
 * Node's agent after 5 s). Otherwise a client whose event loop stalls past the server's idle timeout
 * (a loaded CI machine: it happened in `.ci/run`) sends its next request on a socket the server has
 * just closed, and a client built with `maxRetries: 0`, as tests build them, fails with
 * `Connection error.` for a request the server never saw.
 */
import OpenAI from 'openai';
import { startScriptedModel, type ScriptedModel } from '../../src/testing/scripted-model';
import { startRecordedModel, type RecordedModel } from '../support/recorded-model';

const STALL_MS = 6_000; // past Node's default 5 s keep-alive timeout, which is what the race needed

/** Block this process's event loop, as a starved or collecting process does (not a wait for anything). */
function stall(ms: number): void {
  const end = Date.now() + ms;
  while (Date.now() < end);
}

let scripted: ScriptedModel;
let recorded: RecordedModel;
afterAll(() => Promise.all([scripted?.close(), recorded?.close()]));

test('a request after the event loop stalled past 5 s reuses no socket the server closed', async () => {
  scripted = await startScriptedModel({ script: () => ({ content: 'hi' }) });
  recorded = await startRecordedModel();
  recorded.serve(
    JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }] }),
  );
  const clients = [scripted.url, recorded.url].map((baseURL) => new OpenAI({ baseURL, apiKey: 'test', maxRetries: 0 }));
  const ask = (c: OpenAI) => c.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] });

  for (const c of clients) await ask(c); // each client now holds an idle keep-alive socket
  await new Promise<void>((resolve) => setImmediate(resolve)); // the sockets go back to their pools
  stall(STALL_MS);
  const answers = await Promise.all(clients.map(ask));
  expect(answers.map((a) => a.choices[0]?.message.content)).toEqual(['hi', 'hi']);
  expect(recorded.requests).toHaveLength(2);
}, 30_000);
