/**
 * The soak's model: the scripted model server (a real loopback HTTP server speaking Chat Completions)
 * with a script that is deterministic per turn — routed by the turn's input text, stepped by the
 * number of assistant messages so far — and network faults injected on a schedule: a steady rate of
 * delays, 429s and connection resets keyed by request number, and outages on demand (every request
 * fails until the outage ends).
 */
import { startScriptedModel, type ScriptedModel, type ScriptStep } from '../../src/testing/scripted-model';
import { requestMessages } from '../../src/testing/scripted-model/messages';
import { TOKENS_PER_CALL, TOOLS } from './agents';
import { parseInput, type ScenarioKind } from './scenarios';

export type ModelFault = 'delay' | '429' | 'reset';

export interface SoakModel {
  url: string;
  /** Faults injected so far, by kind, and requests answered. */
  counts(): Record<ModelFault | 'requests', number>;
  /** Turns the steady rate of delays, 429s and resets on or off (off at start). */
  setFaultRates(on: boolean): void;
  /** Every request fails (429s and resets, alternately) until `end()` is called. */
  outage(): { end(): void };
  close(): Promise<void>;
}

export interface ModelFaultRates {
  /** Every nth request is delayed, answered 429, or reset (0: never). */
  delayEvery: number;
  rateLimitEvery: number;
  resetEvery: number;
  delayMs: number;
}

/** The tool a scenario's first model call asks for. */
const FIRST_TOOL: Record<ScenarioKind, string> = {
  write: TOOLS.write,
  canary: TOOLS.write,
  session: TOOLS.write,
  approve: TOOLS.gated,
  deny: TOOLS.gated,
  race: TOOLS.gated,
  instant: TOOLS.previewed,
  timeout: TOOLS.timed,
  subagent: TOOLS.helper,
  helper: TOOLS.write,
  fail: TOOLS.write,
};

/** The answer to one request, from the conversation alone: first a tool call, then the final text. */
export function answer(body: unknown): ScriptStep {
  const messages = requestMessages(body);
  let lastUser = messages.length - 1;
  while (lastUser >= 0 && messages[lastUser]?.role !== 'user') lastUser--;
  const input = messages[lastUser]?.content;
  const parsed = parseInput(typeof input === 'string' ? input : '');
  if (!parsed) return { error: { status: 400, message: `soak model: unknown input ${JSON.stringify(input)}` } };
  const step = messages.slice(lastUser + 1).filter((m) => m.role === 'assistant').length;
  const { kind, id } = parsed;
  if (step === 0) {
    const tool = FIRST_TOOL[kind];
    const args = tool === TOOLS.helper ? { input: `soak:helper:${id}` } : { effect: `${id}#${step + 1}` };
    return { toolCalls: [{ id: `call_${kind}_${step}`, name: tool, arguments: args }], usage: { ...TOKENS_PER_CALL } };
  }
  return { content: `done: ${kind} ${id}`, usage: { ...TOKENS_PER_CALL } };
}

export async function startSoakModel(rates: ModelFaultRates): Promise<SoakModel> {
  const counts = { delay: 0, '429': 0, reset: 0, requests: 0 };
  let outages = 0;
  let ratesOn = false;
  const fault = (index: number): ScriptStep | undefined => {
    const every = (n: number) => ratesOn && n > 0 && index % n === n - 1;
    if (outages > 0) {
      counts[index % 2 === 0 ? '429' : 'reset']++;
      return index % 2 === 0 ? rateLimited() : { reset: true };
    }
    if (every(rates.resetEvery)) {
      counts.reset++;
      return { reset: true };
    }
    if (every(rates.rateLimitEvery)) {
      counts['429']++;
      return rateLimited();
    }
    return undefined;
  };
  const model: ScriptedModel = await startScriptedModel({
    script: ({ body, index }) => {
      counts.requests++;
      const injected = fault(index);
      if (injected) return injected;
      const step = answer(body);
      if (ratesOn && rates.delayEvery > 0 && index % rates.delayEvery === rates.delayEvery - 1 && !('error' in step)) {
        counts.delay++;
        return { ...step, delayMs: rates.delayMs };
      }
      return step;
    },
  });
  return {
    url: model.url,
    counts: () => ({ ...counts }),
    setFaultRates(on) {
      ratesOn = on;
    },
    outage() {
      outages++;
      let ended = false;
      return {
        end() {
          if (!ended) outages--;
          ended = true;
        },
      };
    },
    close: () => model.close(),
  };
}

function rateLimited(): ScriptStep {
  return { error: { status: 429, message: 'soak: rate limited', headers: { 'retry-after-ms': '250' } } };
}
