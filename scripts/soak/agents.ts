/**
 * The soak's agents and tools, as the worker registers them and the model script and scenarios name
 * them. One place so that the three agree.
 */
import { Context } from '@temporalio/activity';
import { z } from 'zod';
import { defineAgent } from '../../src/agents/define';
import { defineTool, type ToolDefinition } from '../../src/tools/define';

export const SOAK_AGENT = 'soak';
export const HELPER_AGENT = 'soak-helper';
/** Stops after one model call (`maxModelCalls: 1`): the turn that fails as designed. */
export const FAIL_AGENT = 'soak-fail';
export const SOAK_INSTRUCTIONS = 'You are the soak agent.';
export const HELPER_INSTRUCTIONS = 'You are the soak helper.';

/** Tools: one ungated, one gated without deadline, one gated with a short deadline; all write the ledger. */
export const TOOLS = {
  write: 'ledger_write',
  gated: 'gated_write',
  timed: 'timed_write',
  /** Gated, with a preview: a decision can arrive while the preview runs (the `instant` scenario). */
  previewed: 'previewed_write',
  helper: 'helper',
} as const;

/** The deadline of `timed_write`'s gate: short, so approval timeouts happen within a quick soak. */
export const TIMED_GATE = '3 seconds';

/** Every model response carries this usage; a turn's expected usage is its model calls × this. */
export const TOKENS_PER_CALL = { prompt_tokens: 10, completion_tokens: 5 } as const;

export const soakAgents = [
  defineAgent({
    name: SOAK_AGENT,
    instructions: SOAK_INSTRUCTIONS,
    tools: [TOOLS.write, TOOLS.gated, TOOLS.timed, TOOLS.previewed],
    subAgents: { [TOOLS.helper]: { agent: HELPER_AGENT, description: 'Ask the helper to write an effect.' } },
    approvals: { [TOOLS.gated]: true, [TOOLS.timed]: { timeout: TIMED_GATE }, [TOOLS.previewed]: true },
  }),
  defineAgent({ name: HELPER_AGENT, instructions: HELPER_INSTRUCTIONS, tools: [TOOLS.write] }),
  defineAgent({ name: FAIL_AGENT, instructions: SOAK_INSTRUCTIONS, tools: [TOOLS.write], maxModelCalls: 1 }),
];

/** `fetch`, with the network cause in the error (undici says only "fetch failed"). */
async function ledgerFetch(url: string, init?: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new Error(`ledger ${url}: ${(err as Error).message}${cause ? ` (${cause.code ?? cause.message})` : ''}`, {
      cause: err,
    });
  }
}

async function post(url: string, body: unknown): Promise<Response> {
  const res = await ledgerFetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`ledger ${url} answered ${res.status}`);
  return res;
}

/**
 * A tool with a side effect in the ledger, made idempotent by `ctx.idempotencyKey`: it records the
 * attempt, asks whether the key's effect is there and applies it only when it is not.
 */
function ledgerTool(name: string, ledgerUrl: string): ToolDefinition<any> {
  return defineTool({
    name,
    description: 'Apply an effect in the ledger, once per tool call.',
    input: z.object({ effect: z.string() }),
    // An activity before the wait: the window in which a decision reaches a call still preparing.
    ...(name === TOOLS.previewed && { preview: ({ effect }: { effect: string }) => `would apply ${effect}` }),
    async execute({ effect }, ctx) {
      const { attempt } = Context.current().info;
      await post(`${ledgerUrl}/attempts`, { key: ctx.idempotencyKey, effect, attempt, pid: process.pid });
      const seen = await ledgerFetch(`${ledgerUrl}/effects/${encodeURIComponent(ctx.idempotencyKey)}`);
      const { applied } = (await seen.json()) as { applied: boolean };
      if (applied) return `effect ${effect} was already applied`;
      await post(`${ledgerUrl}/effects`, { key: ctx.idempotencyKey, effect });
      return `applied ${effect}`;
    },
  });
}

export function soakTools(ledgerUrl: string): ToolDefinition<any>[] {
  return [TOOLS.write, TOOLS.gated, TOOLS.timed, TOOLS.previewed].map((name) => ledgerTool(name, ledgerUrl));
}
