/**
 * The messages of the conversation the model reads (part of the plain-JSON spec, src/core/spec/index.ts),
 * and which model API carries them.
 */

/** Which model API answers an agent: Chat Completions (default, every compatible server) or OpenAI's Responses API. */
export type ModelApi = 'chat' | 'responses';

/**
 * What the Responses API needs to continue from an answer, kept with it in the conversation (Chat
 * Completions never sends it): the response's id, for `previous_response_id` where the provider keeps
 * state, and its reasoning items (opaque, with `encrypted_content`), sent back where it does not.
 */
export interface ResponsesState {
  id?: string;
  reasoning?: unknown[];
}

/** One message of the conversation the model reads (Chat Completions roles). */
export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | {
      role: 'assistant';
      content: string | null;
      tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
      /** Responses API only; absent from messages of Chat Completions calls. */
      responses?: ResponsesState;
    }
  | { role: 'tool'; tool_call_id: string; content: string };

export type AssistantMessage = Extract<ChatMessage, { role: 'assistant' }>;
