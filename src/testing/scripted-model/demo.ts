/**
 * The built-in demo script: the offline model `tiller dev --demo` and the worker use when no
 * `OPENAI_API_KEY` is set. Pure, no Node imports.
 *
 * @module
 */
import { messageText, requestMessages, type LooseMessage } from './messages';
import type { ScriptFn, ScriptStep, ScriptUsage } from './script';

const FILE_RE = /(?:[\w-]+\/)*[\w-]+(?:\.[\w-]+)*\.[A-Za-z][A-Za-z0-9]*/;
const DEFAULT_FILE = 'notes.txt';

/**
 * The offline demo model (used when no `OPENAI_API_KEY` is set) for the demo agent "assistant", which
 * has the tools `read_file({ path })` and `delete_file({ path })`.
 *
 * Stateless: each answer is derived from `body.messages`. The file is the first `name.ext`-like token
 * in the last user message (default `notes.txt`). After the last user message:
 * 1. no tool result yet → "Let me read <file> first." plus a `read_file` call;
 * 2. last message is the `read_file` result → "I've read it; now I'll delete <file> as you asked." (or, when
 *    the read failed, "I could not read <file> (<error>); I'll still try to delete it as you asked.") plus a
 *    `delete_file` call;
 * 3. last message is the `delete_file` result → a final summary: "Done: <file> was deleted. Its contents
 *    were: <first 200 chars of the read result>" if the result starts with `Deleted`, otherwise
 *    "I did not delete <file>: <result>".
 *
 * Usage is always `{ prompt_tokens: 50, completion_tokens: 20 }`. Tool call ids are derived from the
 * request index and the conversation length, so they are unique within a conversation.
 */
export function demoScript(): ScriptFn {
  const usage: ScriptUsage = { prompt_tokens: 50, completion_tokens: 20 };
  return ({ body, index }) => demoAnswer(requestMessages(body), index, usage);
}

/** The demo's answer to a conversation; see {@link demoScript}. */
function demoAnswer(messages: LooseMessage[], index: number, usage: ScriptUsage): ScriptStep {
  const lastUser = lastUserIndex(messages);
  const userText = lastUser >= 0 ? messageText(messages[lastUser]?.content) : '';
  const file = FILE_RE.exec(userText)?.[0] ?? DEFAULT_FILE;
  const after = messages.slice(lastUser + 1);
  const idBase = `call_demo_${index}_${messages.length}`;

  if (!after.some((m) => m.role === 'tool')) {
    return {
      content: `Let me read ${file} first.`,
      toolCalls: [{ id: `${idBase}_read`, name: 'read_file', arguments: { path: file } }],
      usage,
    };
  }

  const names = toolCallNames(after);
  const last = messages[messages.length - 1];
  const lastToolName =
    last?.role === 'tool' && typeof last.tool_call_id === 'string' ? names.get(last.tool_call_id) : undefined;

  if (lastToolName === 'read_file') {
    const read = messageText(last?.content);
    return {
      content: read.startsWith('Error')
        ? `I could not read ${file} (${read.slice(0, 200)}); I'll still try to delete it as you asked.`
        : `I've read it; now I'll delete ${file} as you asked.`,
      toolCalls: [{ id: `${idBase}_delete`, name: 'delete_file', arguments: { path: file } }],
      usage,
    };
  }
  if (lastToolName === 'delete_file')
    return { content: deleteSummary(file, messageText(last?.content), after, names), usage };
  return { content: `I have nothing more to do for ${file}.`, usage };
}

/** The index of the last user message, or -1. */
function lastUserIndex(messages: LooseMessage[]): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]?.role === 'user') return i;
  }
  return -1;
}

/** Map tool_call_id -> function name, over the assistant messages in `messages`. */
function toolCallNames(messages: LooseMessage[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const m of messages) {
    if (m.role !== 'assistant' || !Array.isArray(m.tool_calls)) continue;
    for (const tc of m.tool_calls as unknown[]) {
      if (!tc || typeof tc !== 'object') continue;
      const id = (tc as { id?: unknown }).id;
      const name = (tc as { function?: { name?: unknown } }).function?.name;
      if (typeof id === 'string' && typeof name === 'string') names.set(id, name);
    }
  }
  return names;
}

/** The final answer once `delete_file` returned `result`: what was deleted and what it held, or why not. */
function deleteSummary(file: string, result: string, after: LooseMessage[], names: Map<string, string>): string {
  if (!result.startsWith('Deleted')) return `I did not delete ${file}: ${result}`;
  const readResult = after.find(
    (m) => m.role === 'tool' && typeof m.tool_call_id === 'string' && names.get(m.tool_call_id) === 'read_file',
  );
  const contents = readResult ? messageText(readResult.content).slice(0, 200) : '';
  return `Done: ${file} was deleted. Its contents were: ${contents}`;
}
