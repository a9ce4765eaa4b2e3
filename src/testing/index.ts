/**
 * Test your own agent offline: a scripted model (a real OpenAI-compatible HTTP server on loopback that
 * answers from a script) and a local Temporal dev server. Nothing here calls a network service.
 *
 * @example
 * ```ts
 * const model = await startScriptedModel({ script: scriptByInstructions({ 'You help.': [{ content: 'Hi!' }] }) });
 * process.env.OPENAI_BASE_URL = model.url; // the worker's model calls now go to the script
 * ```
 *
 * @module
 */
export {
  startScriptedModel,
  scriptByInstructions,
  demoScript,
  type NormalStep,
  type RecordedRequest,
  type ScriptedModel,
  type ScriptedModelOptions,
  type ScriptFn,
  type ScriptStep,
  type ScriptToolCall,
  type ScriptUsage,
} from './scripted-model';
export { startLocalTemporal, type LocalTemporalOptions } from './local-temporal';
export type { DevServer, DevServerOptions } from './dev-server';
