/**
 * Starting a worker from the command line (`tiller worker`, and in-process in `tiller dev`):
 * connection, search attributes, model selection, optional prebuilt bundle, clean shutdown.
 */
import fs from 'node:fs';
import { DefaultLogger, NativeConnection, Runtime, type LogLevel, type Worker } from '@temporalio/worker';
import type OpenAI from 'openai';
import type { TillerHooks } from '../agents/hooks';
import { openAIFromEnv } from '../activities/model';
import { ProviderConfigError, providersFromEnv } from '../activities/providers';
import { keysFromEnv } from '../codec/encryption';
import type { TemporalSettings } from '../client/connect';
import { defaultModel } from '../worker/model-env';
import { ensureSearchAttributes } from '../worker/search-attributes';
import { demoScript, startScriptedModel, type ScriptedModel } from '../testing/scripted-model';
import { workspaceRoot } from '../tools/files';
import { tracingFromEnv, type Tracing } from '../observability/tracing';
import { slackApprovals } from '../slack/worker/hooks';
import { SlackConfigError, slackPostingFromEnv } from '../slack/common/config';
import { createWorker } from '../worker/create-worker';
import { CliError, unreachable } from './errors';
import { connectOperator } from './temporal';

export interface RunningWorker {
  worker: Worker;
  /** The worker's connection (closed when it stops): a client on it can start turns eagerly. */
  connection: NativeConnection;
  /** Settles when the worker has stopped (rejects when it crashed). */
  done: Promise<void>;
  /** Shuts the worker down and closes what it opened (idempotent). */
  stop(): Promise<void>;
}

type Log = (line: string) => void;

/** Where a prebuilt bundle's traced twin lives: `workflow-bundle.js` → `workflow-bundle.traced.js`. */
export function tracedBundlePath(bundlePath: string): string {
  return bundlePath.replace(/(\.js)?$/, '.traced.js');
}

/** Where a bundle's encrypting twin lives (with the encoding failure converter): `….js` → `….encrypted.js`. */
export function encryptedBundlePath(bundlePath: string): string {
  return bundlePath.replace(/(\.js)?$/, '.encrypted.js');
}

/**
 * The prebuilt workflow bundle to run, if any. Tracing needs the OpenTelemetry workflow interceptors
 * inside the bundle (WORKFLOW_TRACING_MODULE), encryption the encoding failure converter
 * (src/codec/failures.ts): the twin that `tiller bundle --traced --encrypted` writes
 * next to the plain one (`.traced.js`, `.encrypted.js`, `.traced.encrypted.js`), or else none (bundle at start).
 */
export function chooseBundle(
  bundlePath: string | undefined,
  traced: boolean,
  exists: (file: string) => boolean = fs.existsSync,
  encrypted = false,
): { codePath?: string; note?: string } {
  if (!bundlePath) return {};
  const traceable = traced ? tracedBundlePath(bundlePath) : bundlePath;
  const twin = encrypted ? encryptedBundlePath(traceable) : traceable;
  if (twin === bundlePath || exists(twin)) return { codePath: twin };
  const why = [traced && 'tracing', encrypted && 'encryption'].filter(Boolean).join(' and ');
  const what = [traced && 'the tracing interceptors', encrypted && 'the encoding failure converter'].filter(Boolean);
  return {
    note: `${why} ${traced && encrypted ? 'are' : 'is'} on but ${twin} does not exist: bundling workflows with ${what.join(' and ')} …`,
  };
}

let runtimeInstalled = false;
/**
 * Quiet SDK logs (WARN unless `TILLER_LOG_LEVEL`), leave SIGINT/SIGTERM to the CLI, and with
 * `TILLER_METRICS_ADDRESS` (e.g. `0.0.0.0:9464`) serve the Temporal runtime's metrics and Tiller's
 * counters (src/workflows/metrics.ts) for Prometheus at `http://<address>/metrics`.
 */
export function installRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  const level = (process.env.TILLER_LOG_LEVEL?.toUpperCase() ?? 'WARN') as LogLevel;
  const bindAddress = process.env.TILLER_METRICS_ADDRESS;
  try {
    Runtime.install({
      logger: new DefaultLogger(level),
      shutdownSignals: [],
      ...(bindAddress && { telemetryOptions: { metrics: { prometheus: { bindAddress } } } }),
    });
  } catch {
    // A runtime exists already (e.g. when embedded); keep it.
  }
}

async function searchAttributesReady(settings: TemporalSettings, log: Log): Promise<boolean> {
  const connection = await connectOperator(settings);
  try {
    const outcome = await ensureSearchAttributes(connection, settings.namespace);
    if (outcome.type === 'registered') {
      log(
        outcome.added.length
          ? `search attributes: registered ${outcome.added.join(', ')} on namespace ${settings.namespace}`
          : 'search attributes: all present',
      );
      return true;
    }
    log(`search attributes: could not register ${outcome.missing.join(', ')}: ${outcome.reason}`);
    log('running without them: turns work, but `tiller pending` and the UI cannot find waiting turns');
    return false;
  } catch (err) {
    log(`search attributes: could not check them: ${(err as Error).message}; running without them`);
    return false;
  } finally {
    await connection.close();
  }
}

async function pickModel(log: Log): Promise<{ openai: OpenAI; scripted?: ScriptedModel }> {
  if (process.env.OPENAI_API_KEY || process.env.OPENAI_BASE_URL) {
    log(`model: ${defaultModel()} at ${process.env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1'}`);
    return { openai: openAIFromEnv() };
  }
  const scripted = await startScriptedModel({ script: demoScript() });
  log(`No OPENAI_API_KEY set: using the scripted demo model at ${scripted.url} (offline, deterministic)`);
  return { openai: openAIFromEnv({ baseURL: scripted.url, apiKey: 'demo' }), scripted };
}

/** The named providers from `TILLER_PROVIDERS` (names and endpoints only: never a key); a bad setting stops the start. */
function logProviders(log: Log): void {
  let providers;
  try {
    providers = providersFromEnv();
  } catch (err) {
    if (err instanceof ProviderConfigError) throw new CliError(err.message);
    throw err;
  }
  for (const [name, p] of Object.entries(providers ?? {}))
    log(`model provider ${name}: ${p.baseURL}${p.api === 'responses' ? ' (Responses API)' : ''}`);
}

/** The Slack hook when TILLER_SLACK_CHANNEL is set (src/slack/common/config.ts); a bad setting stops the start. */
function slackHooksFromEnv(log: Log): TillerHooks[] {
  let config;
  try {
    config = slackPostingFromEnv();
  } catch (err) {
    if (err instanceof SlackConfigError) throw new CliError(err.message);
    throw err;
  }
  if (!config) return [];
  log(`slack: posting approval requests to ${config.channel}${config.showArgs ? ' (with arguments)' : ''}`);
  return [slackApprovals(config)];
}

export async function startCliWorker(settings: TemporalSettings, log: Log): Promise<RunningWorker> {
  installRuntime();
  const hooks = slackHooksFromEnv(log);
  let connection: NativeConnection;
  try {
    connection = await NativeConnection.connect(settings.connectionOptions);
  } catch (err) {
    throw unreachable(settings.address, err);
  }
  let scripted: ScriptedModel | undefined;
  let tracing: Tracing | undefined;
  try {
    tracing = tracingFromEnv();
    const encrypted = keysFromEnv().length > 0; // the worker's converter encodes failures (./codec/failures)
    const searchAttributes = await searchAttributesReady(settings, log);
    const model = await pickModel(log);
    scripted = model.scripted;
    logProviders(log);
    const bundle = chooseBundle(process.env.TILLER_WORKFLOW_BUNDLE, !!tracing, fs.existsSync, encrypted);
    if (bundle.note) log(bundle.note);
    else if (!bundle.codePath) log('bundling workflows …');
    if (tracing) log(`tracing: OpenTelemetry, exporter ${process.env.OTEL_TRACES_EXPORTER}`);
    const worker = await createWorker({
      connection,
      namespace: settings.namespace,
      taskQueue: settings.taskQueue,
      openai: model.openai,
      searchAttributes,
      tracing: tracing ?? false,
      hooks,
      ...(bundle.codePath && { workflowBundle: { codePath: bundle.codePath } }),
    });
    const done = worker.run();
    log(`worker polling task queue ${settings.taskQueue} on ${settings.address} namespace ${settings.namespace}`);
    log(`workspace: ${workspaceRoot()}`);
    let stopping: Promise<void> | undefined;
    const cleanup = async () => {
      await connection.close().catch(() => undefined);
      await scripted?.close();
      await tracing?.shutdown().catch(() => undefined); // flushes the last spans
    };
    // Close the connection and model whichever way the worker ends.
    const settled = done.then(cleanup, async (err) => {
      await cleanup();
      throw err;
    });
    const stop = () =>
      (stopping ??= (async () => {
        if (worker.getState() === 'RUNNING') worker.shutdown();
        await settled.catch(() => undefined);
      })());
    return { worker, connection, done: settled, stop };
  } catch (err) {
    await connection.close().catch(() => undefined);
    await scripted?.close();
    await tracing?.shutdown().catch(() => undefined);
    throw err;
  }
}

/** Resolves on the first SIGINT/SIGTERM; a second one exits at once. */
export function untilSignal(onSignal?: (signal: NodeJS.Signals) => void): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    let received = false;
    const handler = (signal: NodeJS.Signals) => {
      if (received) process.exit(130);
      received = true;
      onSignal?.(signal);
      resolve(signal);
    };
    process.on('SIGINT', handler);
    process.on('SIGTERM', handler);
  });
}
