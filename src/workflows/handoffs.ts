/**
 * Handoffs in a turn: a model response that calls a handoff tool (`transfer_to_<agent>`) gives the rest
 * of the turn to that agent — its instructions, tools, settings and approval policy — once the other calls
 * of the response have run. One handoff per response and `MAX_HANDOFFS` per turn; a handoff that cannot
 * happen is a tool error the model reads, and the current agent goes on.
 */
import { isCancellation } from '@temporalio/workflow';
import { MAX_HANDOFFS } from '../agents/handoffs';
import { describeFailure } from '../core/failures';
import { parseToolArgs } from '../core/args';
import type { TurnInput } from '../core/schemas';
import type { AgentSpec, ChatMessage } from '../core/spec';
import { acts, startOptions } from './activities';
import type { BatchCall } from './batch';
import type { TurnConversation } from './conversation';
import { PATCH_HANDOFFS } from './patches';
import { argsForDisplay } from './tool-call/args';
import type { TurnRecorder } from './recorder';

/** The handoff a response asks for: its calls (results set) and, when it can happen, where to. */
export interface PlannedHandoff {
  calls: BatchCall[];
  to?: { agent: string; callId: string; tool: string; reason?: string };
}

/**
 * The response's calls with each handoff call answered: the first that may happen says the turn is
 * handed over; any other is refused. Undefined when the response asks for no handoff (or the turn's
 * history is from before handoffs).
 */
export function planHandoff(
  agent: AgentSpec,
  calls: readonly BatchCall[],
  recorder: TurnRecorder,
): PlannedHandoff | undefined {
  const targetOf = (name: string) => agent.tools.find((t) => t.name === name)?.handoff?.agent;
  if (!calls.some((c) => targetOf(c.name) !== undefined) || !recorder.version.has(PATCH_HANDOFFS)) return undefined;
  const taken = recorder.state.handedOffFrom?.length ?? 0;
  let to: PlannedHandoff['to'];
  const answered = calls.map((c): BatchCall => {
    const target = targetOf(c.name);
    if (target === undefined) return c;
    const fail = (error: string): BatchCall => {
      recorder.record({ type: 'TOOL_FAILED', toolCallId: c.id, tool: c.name, args: argsForDisplay(c.raw), error });
      return { ...c, result: error };
    };
    if (to) return fail(`Error: only one handoff per response; the turn goes to ${to.agent}, not ${target}.`);
    if (taken >= (agent.maxHandoffs ?? MAX_HANDOFFS))
      return fail(`Error: this turn was handed over ${taken} times already, the most it may be; answer yourself.`);
    const args = parseToolArgs(c.raw);
    const reason =
      args.type === 'valid' && typeof (args.value as { reason?: unknown })?.reason === 'string'
        ? (args.value as { reason: string }).reason
        : undefined;
    to = { agent: target, callId: c.id, tool: c.name, ...(reason !== undefined && { reason }) };
    return { ...c, result: `Transferred to ${target}: ${target} answers from here.` };
  });
  return { calls: answered, ...(to && { to }) };
}

/**
 * Gives the turn to the planned agent (an activity resolves it and runs the handoff's hooks and input
 * filter); returns the new agent, or the current one when the handoff failed (the model reads why).
 */
export async function handOff(
  planned: NonNullable<PlannedHandoff['to']>,
  current: AgentSpec,
  ctx: { recorder: TurnRecorder; conversation: TurnConversation; input: TurnInput },
): Promise<AgentSpec> {
  const { recorder, conversation } = ctx;
  try {
    const response = await acts.handOff.executeWithOptions(
      { ...startOptions, summary: `hand off to ${planned.agent}` },
      [
        {
          from: current.name,
          to: planned.agent,
          turnId: recorder.state.turnId,
          ...(ctx.input.sessionId !== undefined && { sessionId: ctx.input.sessionId }),
          input: ctx.input.input,
          toolCallId: planned.callId,
          conversation: conversation.reference(),
        },
      ],
    );
    recorder.record({
      type: 'HANDOFF',
      toolCallId: planned.callId,
      from: current.name,
      to: response.spec.name,
      ...(planned.reason !== undefined && { reason: planned.reason }),
    });
    recorder.record({
      type: 'TOOL_ENDED',
      toolCallId: planned.callId,
      tool: planned.tool,
      durationMs: 0,
      result: `handed over to ${response.spec.name}`,
    });
    recorder.hookFailures(response.hookFailures);
    conversation.switchAgent(response.spec, response.messages as ChatMessage[] | undefined);
    return response.spec;
  } catch (err) {
    if (isCancellation(err)) throw err;
    const error = `the handoff to ${planned.agent} failed: ${describeFailure(err)}`;
    recorder.record({ type: 'TOOL_FAILED', toolCallId: planned.callId, tool: planned.tool, args: {}, error });
    conversation.addUserMessage(`(Tiller) ${error}. You keep the conversation: answer yourself.`);
    return current;
  }
}
