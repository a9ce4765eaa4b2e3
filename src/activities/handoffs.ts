/**
 * `handOff`: the agent a handoff gives the turn to, resolved like a turn's first agent (its spec, its
 * dynamic instructions, its `onAgentStart` hooks), the handoff's `onHandoff`, and its input filter run
 * on the conversation read back from the turn (checked against its digest, like a model call's).
 */
import { createHash } from 'node:crypto';
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { AgentDefinition } from '../agents/define';
import { handoffsOf, type HandoffDefinition } from '../agents/handoffs';
import { conversationQuery } from '../core/contract';
import { BOUNDS, clip, jsonBytes } from '../core/bounds';
import { resolveConversation } from '../core/conversation';
import { FailureType } from '../core/failures';
import type { ChatMessage, HandoffRequest, HandoffResponse, HookFailure } from '../core/spec';
import { resolvedSpec, type AgentActivityDeps } from './agent-spec';
import { runHooks } from './hooks';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** The messages an input filter returned, if they are a conversation a model can read; else why not. */
export function checkFiltered(messages: unknown): ChatMessage[] | string {
  if (!Array.isArray(messages)) return 'it did not return a list of messages';
  const out: ChatMessage[] = [];
  for (const m of messages as Record<string, unknown>[]) {
    const role = m?.role;
    if (role === 'system') continue; // the new agent's instructions are the system prompt
    if ((role === 'user' || role === 'tool') && typeof m.content !== 'string') return `a ${role} message without text`;
    if (role === 'tool' && typeof m.tool_call_id !== 'string') return 'a tool message without tool_call_id';
    if (role === 'assistant' && m.content !== null && typeof m.content !== 'string')
      return 'an assistant message whose content is not text';
    if (role !== 'user' && role !== 'assistant' && role !== 'tool')
      return `a message with role ${clip(String(role), 40)}`;
    out.push(structuredClone(m) as ChatMessage);
  }
  const bytes = jsonBytes(out);
  if (bytes > BOUNDS.modelResponseBytes) return `${bytes} bytes of messages, more than ${BOUNDS.modelResponseBytes}`;
  return out;
}

async function conversationOf(req: HandoffRequest): Promise<ChatMessage[]> {
  const ctx = Context.current();
  const turn = ctx.info.workflowExecution;
  if (!req.conversation || !turn) return [];
  const handle = ctx.client.workflow.getHandle(turn.workflowId, turn.runId);
  const snapshot = await handle.query(conversationQuery, { count: req.conversation.count, tools: false });
  const resolved = resolveConversation(req.conversation, snapshot, sha256);
  if (resolved.type === 'invalid')
    throw ApplicationFailure.create({ type: FailureType.ConversationMismatch, message: resolved.error });
  return resolved.messages;
}

export function createHandoffActivities(deps: AgentActivityDeps) {
  const handoffOf = (from: AgentDefinition | undefined, to: string): HandoffDefinition | undefined =>
    from && handoffsOf(from.name, from.handoffs).find((h) => h.agent === to);
  return {
    async handOff(req: HandoffRequest): Promise<HandoffResponse> {
      const from = deps.agents.get(req.from);
      const to = deps.agents.get(req.to);
      const handoff = handoffOf(from, req.to);
      if (!to || !handoff)
        throw ApplicationFailure.create({
          type: FailureType.UnknownAgent,
          message: `agent ${req.from} has no handoff to an agent ${clip(req.to, BOUNDS.name)} on this worker`,
          nonRetryable: true,
        });
      const turn = { turnId: req.turnId, ...(req.sessionId !== undefined && { sessionId: req.sessionId }) };
      const spec = await resolvedSpec(to, { agent: to.name, input: req.input, ...turn }, deps);
      let messages: ChatMessage[] | undefined;
      if (handoff.inputFilter) {
        const filtered = checkFiltered(await handoff.inputFilter(await conversationOf(req)));
        if (typeof filtered === 'string')
          throw ApplicationFailure.create({
            type: 'InvalidHandoffFilter',
            message: `the input filter of the handoff from ${req.from} to ${req.to} is unusable: ${filtered}`,
            nonRetryable: true,
          });
        messages = filtered;
      }
      const hookFailures: HookFailure[] = [];
      if (handoff.onHandoff) {
        try {
          await handoff.onHandoff({
            from: req.from,
            to: req.to,
            input: req.input,
            toolCallId: req.toolCallId,
            ...turn,
          });
        } catch (err) {
          hookFailures.push({
            hook: 'onAgentStart',
            hookName: 'onHandoff',
            error: clip(String((err as Error)?.message ?? err), BOUNDS.text),
          });
        }
      }
      hookFailures.push(
        ...(await runHooks(deps.hooksFor(to.name), 'onAgentStart', { agent: to.name, input: req.input, ...turn })),
      );
      return { spec, hookFailures, ...(messages && { messages }) };
    },
  };
}
