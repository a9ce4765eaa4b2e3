/**
 * A worker process for tests that kill workers (`kill -9`): the same `createWorker` users call, with
 * the model endpoint, workspace and task queue from the environment. Prints `ready` once polling.
 *
 * Optional, for the fault tests (test/e2e/faults.test.ts): `TILLER_TEST_SLOW_TOOL_LOG=<file>` also
 * registers `slow_write` (a heartbeating tool with a side effect deduplicated by its idempotency key)
 * and the agent `writer` that uses it. Without it the worker serves exactly what it always did.
 */
import fs from 'node:fs';
import { Context } from '@temporalio/activity';
import { NativeConnection } from '@temporalio/worker';
import OpenAI from 'openai';
import { z } from 'zod';
import { defineAgent, type DurationLike } from '../../src/agents/define';
import { assistant } from '../../src/agents/assistant';
import { defineTool, type ToolDefinition } from '../../src/tools/define';
import { createWorker } from '../../src/worker/create-worker';
import { fileTools } from '../../src/tools/files';
import { quietRuntime } from './harness';

/** One line of the `slow_write` attempt log (JSON lines), read by the tests. */
export interface SlowToolLogLine {
  event: 'start' | 'applied' | 'duplicate' | 'done';
  key: string;
  attempt: number;
  pid: number;
  text: string;
}

/**
 * `slow_write({ text, ms? })`: logs `start` (with its idempotency key and attempt), applies its side
 * effect — one line in the effects file, unless a line with the same key is already there (then it
 * logs `duplicate` instead of `applied`) — and then holds for `ms` milliseconds and, when
 * `TILLER_TEST_SLOW_TOOL_GATE` names a file, until that file exists, heartbeating all along.
 *
 * Env: `TILLER_TEST_SLOW_TOOL_LOG` (attempt log), `TILLER_TEST_SLOW_TOOL_EFFECTS` (side-effect log,
 * default `<log>.effects`), `TILLER_TEST_SLOW_TOOL_GATE` (optional gate file),
 * `TILLER_TEST_SLOW_TOOL_HEARTBEAT_TIMEOUT` (optional: the tool's `heartbeatTimeout`, e.g. `5s`).
 */
function slowWriteTool(logFile: string): ToolDefinition<any> {
  const effectsFile = process.env.TILLER_TEST_SLOW_TOOL_EFFECTS ?? `${logFile}.effects`;
  const gate = process.env.TILLER_TEST_SLOW_TOOL_GATE;
  const heartbeatTimeout = process.env.TILLER_TEST_SLOW_TOOL_HEARTBEAT_TIMEOUT as DurationLike | undefined;
  return defineTool({
    name: 'slow_write',
    ...(heartbeatTimeout && { heartbeatTimeout }),
    description: 'Append a line to the shared log, once per tool call, slowly.',
    input: z.object({ text: z.string(), ms: z.number().int().nonnegative().optional() }),
    async execute({ text, ms }, ctx) {
      const { attempt } = Context.current().info;
      const log = (event: SlowToolLogLine['event']) => {
        const line: SlowToolLogLine = { event, key: ctx.idempotencyKey, attempt, pid: process.pid, text };
        fs.appendFileSync(logFile, `${JSON.stringify(line)}\n`);
      };
      log('start');
      const applied = fs.existsSync(effectsFile)
        ? fs
            .readFileSync(effectsFile, 'utf8')
            .split('\n')
            .filter(Boolean)
            .some((l) => (JSON.parse(l) as { key: string }).key === ctx.idempotencyKey)
        : false;
      if (applied) {
        log('duplicate');
      } else {
        fs.appendFileSync(effectsFile, `${JSON.stringify({ key: ctx.idempotencyKey, text })}\n`);
        log('applied');
      }
      const until = Date.now() + (ms ?? 0);
      for (let beat = 0; Date.now() < until || (gate !== undefined && !fs.existsSync(gate)); beat++) {
        if (ctx.signal.aborted) throw new Error('slow_write cancelled');
        ctx.heartbeat({ beat });
        await new Promise((r) => setTimeout(r, 100));
      }
      log('done');
      return `wrote ${text}${applied ? ' (already applied)' : ''}`;
    },
  });
}

async function main() {
  quietRuntime();
  const env = (name: string) => {
    const value = process.env[name];
    if (!value) throw new Error(`${name} is required`);
    return value;
  };
  const { readFile, deleteFile } = fileTools(() => env('TILLER_WORKSPACE'));
  const slowLog = process.env.TILLER_TEST_SLOW_TOOL_LOG;
  const extraTools = slowLog ? [slowWriteTool(slowLog)] : [];
  const extraAgents = slowLog
    ? [defineAgent({ name: 'writer', instructions: 'You write lines to the log.', tools: ['slow_write'] })]
    : [];
  const worker = await createWorker({
    connection: await NativeConnection.connect({ address: env('TEMPORAL_ADDRESS') }),
    taskQueue: env('TILLER_TASK_QUEUE'),
    openai: new OpenAI({ baseURL: env('OPENAI_BASE_URL'), apiKey: 'test', maxRetries: 0 }),
    model: 'scripted',
    tools: [readFile, deleteFile, ...extraTools],
    ...(extraAgents.length > 0 && { agents: [assistant, ...extraAgents] }),
    workflowBundle: { codePath: env('TILLER_WORKFLOW_BUNDLE') },
    // A killed worker's sticky queue is abandoned after 1 s instead of the 10 s default.
    worker: { stickyQueueScheduleToStartTimeout: '1s' },
  });
  const running = worker.run();
  process.stdout.write('ready\n');
  await running;
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});
