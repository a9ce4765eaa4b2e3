/**
 * The `tiller` command. `main(argv)` parses, runs one command and resolves to its exit code; it
 * never calls `process.exit` itself (bin/tiller.js does), so tests can import it.
 */
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { temporalSettings, type TemporalSettings } from '../client/connect';
import { cancelCommand, decideCommand, pendingCommand, runCommand, setupCommand, stateCommand } from './commands';
import { codecServerCommand } from './codec';
import { examplesText } from './examples';
import { devCommand } from './dev';
import { writeWorkflowBundles, type BundleOptions } from './bundle';
import { REPLAY_EXIT_CODES, replayCommand } from './replay';
import { serveCommand, type ServeOptions } from './serve';
import { sendCommand, sessionCommand } from './session';
import { EXIT, explain } from './errors';
import { addTemporalCommand } from './passthrough';
import { registerEval } from './eval';
import { registerAudit } from './audit';
import { defaultApprover, packageVersion } from './paths';
import { startCliWorker, untilSignal } from './worker';

const log = (line: string) => process.stdout.write(`${line}\n`);

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0 || n > 65_535) throw new InvalidArgumentError('not a port number');
  return n;
}

async function workerCommand(settings: TemporalSettings): Promise<number> {
  const worker = await startCliWorker(settings, log);
  const signal = await Promise.race([untilSignal(), worker.done.then(() => undefined)]);
  if (signal) log(`${signal}: shutting down the worker …`);
  await worker.stop();
  await worker.done;
  log('worker stopped');
  return EXIT.ok;
}

interface DecideOptions {
  as: string;
  group?: string[];
  reason?: string;
}

/** Who decides, and why: `--as`, `--group` (repeatable), `--reason`. */
const decider = (o: DecideOptions) => ({
  approver: o.as,
  ...(o.group?.length && { approverGroups: o.group }),
  ...(o.reason !== undefined && { reason: o.reason }),
});

export function program(settings: () => TemporalSettings, done: (code: number) => void): Command {
  const cmd = new Command('tiller')
    .description('Run LLM agent turns durably on Temporal; watch them, and approve or deny their tool calls.')
    .version(packageVersion())
    .showHelpAfterError()
    .exitOverride()
    .addHelpText(
      'after',
      '\nConnection: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS_*, TEMPORAL_PROFILE;' +
        '\ntask queue: TILLER_TASK_QUEUE (default tiller); model: OPENAI_API_KEY, OPENAI_BASE_URL, TILLER_MODEL.',
    );
  const as = () => new Option('--as <name>', 'who decides (recorded as the approver)').default(defaultApprover());
  const group = () =>
    new Option(
      '--group <name>',
      'decide as a member of this group, for gates with group:<name> approvers (repeatable)',
    ).argParser((g: string, gs: string[] = []) => [...gs, g]);

  cmd
    .command('worker')
    .description('run a worker for the Tiller task queue (scripted demo model unless OPENAI_API_KEY is set)')
    .action(async () => done(await workerCommand(settings())));

  cmd
    .command('dev')
    .description('use (or start) a local Temporal dev server and run a worker in this process')
    .option('--demo', 'run the demo turn, then stop')
    .option('--port <port>', 'dev server port (default: that of TEMPORAL_ADDRESS, else 7233)', port)
    .option('--ui-port <port>', 'Temporal UI port', port, 8233)
    .option('--db <file>', 'SQLite file the dev server persists to', '.tiller/dev.db')
    .addOption(as())
    .action(async (o: { demo?: boolean; port?: number; uiPort: number; db: string; as: string }) =>
      done(await devCommand(settings(), o)),
    );

  cmd
    .command('run')
    .description('start a turn and follow it live; decide inline when it waits for approval')
    .argument('<agent>', 'agent name, e.g. assistant')
    .argument('<input>', 'the user message')
    .option('--turn-id <id>', 'workflow id for the turn (default turn-<uuid>)')
    .option('--json', 'print one JSON event per line')
    .addOption(as())
    .action(async (agent: string, input: string, o: { turnId?: string; json?: boolean; as: string }) =>
      done(await runCommand(settings(), agent, input, o)),
    );

  cmd
    .command('state')
    .description("show a turn's state: status, pending approvals, tool calls, usage")
    .argument('<turn>', 'turn (workflow) id')
    .option('--json', 'print the raw state as JSON')
    .action(async (turn: string, o: { json?: boolean }) => done(await stateCommand(settings(), turn, o)));

  cmd
    .command('approve')
    .description('approve a pending tool call')
    .argument('<turn>', 'turn (workflow) id')
    .argument('<id>', 'tool call id (see `npx tiller state <turn>`)')
    .addOption(
      new Option('--scope <scope>', 'once, or trust the tool for the turn/session')
        .choices(['once', 'turn', 'session'])
        .default('once'),
    )
    .addOption(as())
    .addOption(group())
    .option('--reason <text>', 'why')
    .action(async (turn: string, id: string, o: DecideOptions & { scope: 'once' | 'turn' | 'session' }) =>
      done(await decideCommand(settings(), turn, { id, approved: true, scope: o.scope, ...decider(o) })),
    );

  cmd
    .command('deny')
    .description('deny a pending tool call (the model sees the reason)')
    .argument('<turn>', 'turn (workflow) id')
    .argument('<id>', 'tool call id (see `npx tiller state <turn>`)')
    .option('--reason <text>', 'why; this is what the model sees')
    .addOption(as())
    .addOption(group())
    .action(async (turn: string, id: string, o: DecideOptions) =>
      done(await decideCommand(settings(), turn, { id, approved: false, ...decider(o) })),
    );

  cmd
    .command('pending')
    .description('list turns waiting for approval')
    .option('--agent <name>', 'only this agent')
    .option('--json', 'print JSON')
    .action(async (o: { agent?: string; json?: boolean }) => done(await pendingCommand(settings(), o)));

  cmd
    .command('send')
    .description('send the next input of a conversation (starts the session on first use) and follow its turn')
    .argument('<session>', 'session (workflow) id')
    .argument('<input>', 'the user message')
    .option('--agent <name>', 'agent of a new session', 'assistant')
    .option('--inline-turns', 'a new session runs its turns inside its own workflow (turn ids <session>#turn-<n>)')
    .option('--json', 'print one JSON event per line')
    .addOption(as())
    .action(
      async (session: string, input: string, o: { agent: string; inlineTurns?: boolean; json?: boolean; as: string }) =>
        done(await sendCommand(settings(), session, input, o)),
    );

  cmd
    .command('session')
    .description("show a session's turns, trust grants, usage and pending approvals")
    .argument('<session>', 'session (workflow) id')
    .option('--json', 'print the raw state as JSON')
    .action(async (session: string, o: { json?: boolean }) => done(await sessionCommand(settings(), session, o)));

  cmd
    .command('codec-server')
    .description(
      'serve /codec/encode and /codec/decode for the Temporal UI (TILLER_ENCRYPTION_KEYS, TILLER_CODEC_TOKEN)',
    )
    .option('--port <port>', 'port', (v) => Number(v), 8888)
    .option('--host <host>', 'interface', '127.0.0.1')
    .option('--ui-origin <origin>', 'the Temporal UI origin allowed by CORS, e.g. http://localhost:8233')
    .action(async (o: { port: number; host: string; uiOrigin?: string }) => done(await codecServerCommand(o)));

  cmd
    .command('serve')
    .description(
      'serve the HTTP gateway: API, live events (SSE), signed webhook, web inbox at /inbox (TILLER_GATEWAY_* env)',
    )
    .option('--port <port>', 'port', port, 8787)
    .option('--host <host>', 'interface', '127.0.0.1')
    .option('--ui-origin <origin>', 'an origin allowed by CORS (same-origin needs none)')
    .option('--hash-token', 'read a token on stdin and print its SHA-256 for TILLER_GATEWAY_TOKENS')
    .action(async (o: ServeOptions) => done(await serveCommand(settings(), o)));

  cmd
    .command('replay')
    .description(
      "replay turns' and sessions' histories against the current workflow code: non-determinism before a deploy",
    )
    .argument('[workflows...]', 'turn or session (workflow) ids')
    .option(
      '--query <filter>',
      'every workflow run matching this visibility query, e.g. TillerStatus="awaiting_approval"',
    )
    .option(
      '--bundle <file>',
      'replay against this workflow bundle (bundleWorkflowCode output) instead of the current code',
    )
    .option('--json', 'print the outcomes as JSON')
    .action(async (workflows: string[], o: { query?: string; bundle?: string; json?: boolean }) =>
      done(await replayCommand(settings(), workflows, o)),
    );

  cmd
    .command('cancel')
    .description('cancel a turn or session: in-flight model and tool calls are cancelled, the state is kept')
    .argument('<id>', 'turn or session (workflow) id')
    .action(async (id: string) => done(await cancelCommand(settings(), id)));

  addTemporalCommand(cmd, done);

  cmd
    .command('bundle')
    .description('build the workflow bundle once, for workers that should not bundle at start (TILLER_WORKFLOW_BUNDLE)')
    .argument('<out>', 'the bundle file to write, e.g. workflow-bundle.js')
    .option('--traced', 'also write <out>.traced.js, with the OpenTelemetry workflow interceptors')
    .option('--encrypted', 'also write <out>.encrypted.js, with the encoding failure converter (encryption)')
    .action(async (out: string, o: BundleOptions) => {
      await writeWorkflowBundles(out, o);
      done(EXIT.ok);
    });

  cmd
    .command('setup')
    .description("register Tiller's search attributes on the namespace")
    .action(async () => done(await setupCommand(settings())));

  registerEval(cmd, settings, done);
  registerAudit(cmd, settings, done);
  for (const sub of cmd.commands) {
    const text = examplesText(sub.name());
    if (text) sub.addHelpText('after', sub.name() === 'replay' ? `${text}\n${REPLAY_EXIT_CODES}` : text);
  }
  return cmd;
}

/** Runs the command line (`argv` as in `process.argv`) and resolves to the exit code. */
export async function main(argv: string[] = process.argv): Promise<number> {
  let cached: TemporalSettings | undefined;
  const settings = () => (cached ??= temporalSettings());
  let code: number = EXIT.ok;
  try {
    await program(settings, (c) => (code = c)).parseAsync(argv);
    return code;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode;
    let ctx = { address: '?', taskQueue: '?' };
    try {
      ctx = settings();
    } catch {
      // the settings themselves failed; the error says why
    }
    const { message, exitCode } = explain(err, ctx);
    process.stderr.write(`${message}\n`);
    return exitCode;
  }
}

if (require.main === module) {
  void main(process.argv).then((code) => process.exit(code));
}
