/**
 * The benchmark's agent, tools and model script. The model is the project's scripted model (a real
 * HTTP server on loopback) driven by a stateless script: the turn's input names a plan
 * (`steps` instant tool calls, then `gated` calls that need approval, then a final answer), and the
 * script derives the next answer from how many tool results the request already carries, so
 * any number of turns can run concurrently against one server.
 *
 * The script also timestamps every request per turn (wall clock, outside the workflow): the time
 * between two consecutive model requests of one turn is exactly one tool step.
 */
import { z } from 'zod';
import { defineAgent, type AgentDefinition } from '../../src/agents/define';
import type { ScriptFn, ScriptedModel } from '../../src/testing/scripted-model';
import { defineTool, type ToolDefinition } from '../../src/tools/define';

export interface Plan {
  /** Unique per turn: the key under which request times are recorded. */
  key: string;
  /** Instant tool steps before anything else. */
  steps: number;
  /** Then this many calls of the gated tool, one per model response. */
  gated?: number;
  /** The instant tool to call (default STEP_TOOL; READ_STEP_TOOL takes the fast path). */
  tool?: string;
}

export const AGENT = 'bench';
export const GATED_AGENT = 'bench_gated';
/** Like AGENT, but the model is called without streaming (as the peer calls it). */
export const UNARY_AGENT = 'bench_unary';
export const STEP_TOOL = 'step_tool';
/** The same instant tool, read-only: the fast path runs it as a local activity. The agents that use it. */
export const READ_STEP_TOOL = 'read_step_tool';
export const FAST_AGENT = 'bench_fast';
export const UNARY_FAST_AGENT = 'bench_fast_unary';
export const GATED_FAST_AGENT = 'bench_fast_gated';
/** Like AGENT, with what issue 26 added configured but never acting: guardrails that pass, a context window never reached, a handoff never taken. */
export const FEATURES_AGENT = 'bench_features';
/** The tool a plan of this agent calls for its steps. */
export const stepToolOf = (agent: string) => (agent.startsWith('bench_fast') ? READ_STEP_TOOL : STEP_TOOL);
export const GATED_TOOL = 'gated_tool';
export const INSTRUCTIONS = 'You are a benchmark agent. Call the tools you are told to call.';
const PREFIX = 'bench-plan ';

export function planInput(plan: Plan): string {
  return `${PREFIX}${JSON.stringify(plan)}`;
}

function planOf(body: any): Plan | undefined {
  const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
  const user = messages.find((m) => m?.role === 'user');
  const text = typeof user?.content === 'string' ? user.content : '';
  if (!text.startsWith(PREFIX)) return undefined;
  return JSON.parse(text.slice(PREFIX.length)) as Plan;
}

/** The id of the model's k-th tool call (0-based) in a plan; the same in every turn. */
export const callId = (k: number) => `call_${k}`;

/** Wall-clock marks taken outside the workflow: model requests per turn, gated tool starts. */
export class Recorder {
  /** performance.now() of every model request received, per plan key. */
  readonly requests = new Map<string, number[]>();
  /** performance.now() when the gated tool's execute started, per `${workflowId}/${toolCallId}`. */
  readonly gatedStarts = new Map<string, number>();
  private readonly waiters = new Map<string, (t: number) => void>();

  request(key: string, at: number): void {
    let times = this.requests.get(key);
    if (!times) this.requests.set(key, (times = []));
    times.push(at);
  }

  gatedStarted(key: string, at: number): void {
    this.gatedStarts.set(key, at);
    this.waiters.get(key)?.(at);
    this.waiters.delete(key);
  }

  /** Resolves with the time the gated tool started for `${workflowId}/${toolCallId}`. */
  gatedStart(key: string): Promise<number> {
    const seen = this.gatedStarts.get(key);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve) => this.waiters.set(key, resolve));
  }
}

/**
 * The model script. `model` (once known) lets it drop the server's own request log, which would
 * otherwise keep every request body — the whole conversation each time — for the life of the run.
 */
export function benchScript(rec: Recorder | undefined, model: () => ScriptedModel | undefined): ScriptFn {
  return ({ body }) => {
    const at = performance.now();
    const m = model();
    if (m) m.requests.length = 0;
    const plan = planOf(body);
    if (!plan) return { error: { status: 400, message: 'bench: the first user message carries no plan' } };
    rec?.request(plan.key, at);
    // Steps done = tool results the conversation already carries (one tool call per answer), which
    // holds however a client groups assistant text and tool calls into messages.
    const messages: any[] = body.messages;
    const k = messages.filter((msg) => msg?.role === 'tool').length;
    const usage = { prompt_tokens: 10, completion_tokens: 5 };
    if (k < plan.steps) {
      const name = plan.tool ?? STEP_TOOL;
      return { content: `step ${k}`, toolCalls: [{ id: callId(k), name, arguments: { i: k } }], usage };
    }
    if (k < plan.steps + (plan.gated ?? 0)) {
      return { content: `gated ${k}`, toolCalls: [{ id: callId(k), name: GATED_TOOL, arguments: { i: k } }], usage };
    }
    return { content: `done after ${k} model calls`, usage };
  };
}

export function benchTools(resultBytes: number, rec?: Recorder): ToolDefinition<any>[] {
  const result = 'r'.repeat(resultBytes);
  const input = z.object({ i: z.number().int() });
  const stepTool = defineTool({
    name: STEP_TOOL,
    description: 'Returns at once.',
    input,
    execute: () => result,
  });
  const gatedTool = defineTool({
    name: GATED_TOOL,
    description: 'Returns at once, after a human approved it.',
    input,
    execute: (_args, ctx) => {
      rec?.gatedStarted(`${ctx.workflowId}/${ctx.toolCallId}`, performance.now());
      return result;
    },
  });
  const readStepTool = defineTool({
    name: READ_STEP_TOOL,
    description: 'Returns at once; only reads.',
    input,
    readOnly: true,
    execute: () => result,
  });
  return [stepTool, gatedTool, readStepTool];
}

export function benchAgents(): AgentDefinition[] {
  return [
    defineAgent({ name: AGENT, instructions: INSTRUCTIONS, tools: [STEP_TOOL], maxModelCalls: 1_000_000 }),
    defineAgent({ name: FAST_AGENT, instructions: INSTRUCTIONS, tools: [READ_STEP_TOOL], maxModelCalls: 1_000_000 }),
    defineAgent({
      name: UNARY_FAST_AGENT,
      instructions: INSTRUCTIONS,
      tools: [READ_STEP_TOOL],
      maxModelCalls: 1_000_000,
      stream: false,
    }),
    defineAgent({
      name: GATED_FAST_AGENT,
      instructions: INSTRUCTIONS,
      tools: [READ_STEP_TOOL, GATED_TOOL],
      approvals: { [GATED_TOOL]: true },
      maxModelCalls: 1_000_000,
    }),
    defineAgent({
      name: UNARY_AGENT,
      instructions: INSTRUCTIONS,
      tools: [STEP_TOOL],
      maxModelCalls: 1_000_000,
      stream: false,
    }),
    defineAgent({
      name: FEATURES_AGENT,
      instructions: INSTRUCTIONS,
      tools: [STEP_TOOL],
      maxModelCalls: 1_000_000,
      inputGuardrails: [{ name: 'passes', run: () => ({ tripwire: false }) }],
      outputGuardrails: [{ name: 'passes', run: () => ({ tripwire: false }) }],
      contextWindow: { tokens: 100_000_000 },
      handoffs: [AGENT],
    }),
    defineAgent({
      name: GATED_AGENT,
      instructions: INSTRUCTIONS,
      tools: [STEP_TOOL, GATED_TOOL],
      approvals: { [GATED_TOOL]: true },
      maxModelCalls: 1_000_000,
    }),
  ];
}
