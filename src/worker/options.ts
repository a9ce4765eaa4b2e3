/**
 * The options of a Tiller worker, declared once: `createTillerPlugin(options)` takes them, and
 * `createWorker` takes them with where the worker runs (`CreateWorkerOptions`: connection, namespace,
 * task queue, other worker options). Each defaults to the environment, then to Tiller's default;
 * `setUpWorker` (./setup.ts) resolves them once, top-down, into the activities, whose dependencies
 * (`ActivityDeps`, src/activities/index.ts) carry the resolved values under the same names.
 * docs/configuration.md lists them (test/unit/configuration.test.ts keeps the table in step).
 */
import type OpenAI from 'openai';
import type { WorkerOptions } from '@temporalio/worker';
import type { ProviderConfig } from '../activities/providers';
import type { AgentDefinition } from '../agents/define';
import type { TillerHooks } from '../agents/hooks';
import type { ModelApi } from '../core/spec';
import type { McpServerConfig } from '../mcp/config';
import type { Tracing } from '../observability/tracing';
import type { ToolDefinition } from '../tools/define';

/** `createTillerPlugin`'s options (and `createWorker`'s, beside where the worker runs). */
export interface TillerPluginOptions {
  // What the worker's activities do.

  /** Defaults to the demo agent `assistant`. */
  agents?: AgentDefinition[];
  /** Defaults to the demo tools `read_file` and `delete_file`. */
  tools?: ToolDefinition<any>[];
  /** Hooks applied to every agent, after the agent's own. */
  hooks?: TillerHooks[];
  /**
   * MCP servers whose tools agents may use, as `<server>__<tool>` in `tools` or all of them with
   * `mcp: ['<server>']`. Stdio (`{ name, command, args?, env?, cwd? }`) or streamable HTTP
   * (`{ name, url, headers? }`); connected on first use, closed when the worker's `run()` ends — so
   * one plugin serves one worker.
   */
  mcpServers?: McpServerConfig[];
  /** Defaults to a client from `OPENAI_BASE_URL` / `OPENAI_API_KEY` with `maxRetries: 0`. */
  openai?: OpenAI;
  /**
   * The API the default client speaks to agents that do not say (`defineAgent({ api })`): `chat` (Chat
   * Completions) or `responses` (OpenAI's Responses API). Defaults to `TILLER_MODEL_API`, else `chat`.
   */
  api?: ModelApi;
  /**
   * Named OpenAI-compatible model providers an agent picks with `provider`:
   * `{ groq: { baseURL, apiKeyEnv: 'GROQ_API_KEY' }, local: { baseURL: 'http://localhost:11434/v1' } }`
   * (`apiKey` or `apiKeyEnv`). Defaults to `TILLER_PROVIDERS` (the same as JSON). Keys stay in the
   * worker: history, state and logs only hold the provider's name, and failures are redacted.
   */
  providers?: Record<string, ProviderConfig>;
  /** Model for agents that name none; defaults to `TILLER_MODEL`, then gpt-4o-mini. */
  model?: string;
  /**
   * Whether the namespace has Tiller's search attributes (`TillerStatus`, …), which turns keep up to date.
   * `true`: they are registered, and are not checked (e.g. a Temporal Cloud namespace set up with `tcld`,
   * where this client may not list them). `false`: turns run without them (they work, but `tiller
   * pending` and the UI cannot find waiting turns). Unset: `createWorker` checks them at start and
   * registers the missing ones where the server allows it (as `tiller setup` does), else throws
   * `SearchAttributesMissingError` naming the command to run; the plugin alone, which has no
   * connection to check with, takes them as registered.
   */
  searchAttributes?: boolean;
  /**
   * Accept decisions by the `decide` signal as well as the update. Default: true, unless
   * `TILLER_DECIDE_SIGNAL=off`. Off, a signal is recorded as rejected (bounded) and only updates decide —
   * a rejected update never reaches history, so nothing a client sends can grow a turn's history.
   */
  decideSignal?: boolean;
  /**
   * This deployment verifies approvers: its Temporal server checks the `tillerApprover` header of every
   * decision against the caller's token (the secured cluster, `npm run cluster`, and a gateway in front
   * of it). Then a decision without the header — a batch operation, a client around the authorizer — is
   * refused and recorded as DECISION_REJECTED, and the `approver` its body names is never believed.
   * Default: false, unless `TILLER_VERIFIED_APPROVERS=on`. Off where the server checks no header (a
   * dev server): there a header proves nothing, and decisions name their approver in the body.
   */
  verifiedApprovers?: boolean;

  // The worker's own.

  /**
   * OpenTelemetry tracing (see src/observability/tracing.ts); defaults to the standard `OTEL_*` env
   * (off unless `OTEL_TRACES_EXPORTER` is set); `false` turns it off. A prebuilt bundle must contain
   * WORKFLOW_TRACING_MODULE: build it with `bundleWorkflowCode({ workflowsPath, plugins: [plugin] })`.
   */
  tracing?: Tracing | false;
  /**
   * A prebuilt workflow bundle (`bundleWorkflowCode`), to skip bundling on every start; without one
   * the worker bundles Tiller's own workflows. Workflows set on the worker itself win.
   */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /**
   * Payload encryption and conversion, when the worker sets none; defaults to `TILLER_ENCRYPTION_KEYS`
   * (see src/codec/encryption.ts). Either way the payload guard decodes last (src/codec/guard.ts).
   */
  dataConverter?: WorkerOptions['dataConverter'];
  /**
   * Memory the worker's workflow cache may take, in MiB: the worker caches `budget ÷ CACHED_TURN_MIB`
   * turns (384 MiB → 512 turns) unless it sets `maxCachedWorkflows` itself. Turns beyond the cache wait
   * evicted, costing nothing until something happens to them (a decision replays their history first).
   * Defaults to `TILLER_WORKFLOW_CACHE_MB`, else 384 — so a worker holds 10,000 waiting turns in
   * under 1 GB (892 MiB RSS at its peak in the bench; the SDK's own default, sized from the heap limit,
   * took 4 GB).
   */
  workflowCacheMiB?: number;
}
