/**
 * A scripted, real-HTTP stand-in for an OpenAI-compatible endpoint: Chat Completions and the Responses API.
 *
 * The server listens on loopback and answers `POST {base}/chat/completions` and `POST {base}/responses`
 * (streaming and non-streaming; responses kept in memory for `previous_response_id`) from one script: either an array of {@link ScriptStep}s consumed one per request, or a
 * {@link ScriptFn} that computes each response from the request body. The real `openai` client can be
 * pointed at it with `new OpenAI({ baseURL: model.url, apiKey: 'test' })`.
 *
 * It is used by tests (deterministic model behaviour, error injection, timing) and by the offline
 * demo (see {@link demoScript}).
 *
 * Modules: `script` (the step shapes), `script-cursor` (playing a script), `server`, `chat-completions`,
 * `wire`, `stream`, `respond`, `timers` (the HTTP server), `responses`, `responses-wire` (the Responses API), `messages`, `by-instructions` (scripts
 * per agent) and `demo` (the built-in demo script).
 *
 * @module
 */
export type { NormalStep, ScriptFn, ScriptStep, ScriptToolCall, ScriptUsage } from './script';
export type { RecordedRequest, ScriptedModel, ScriptedModelOptions } from './api';
export { startScriptedModel } from './server';
export { systemPrompt } from './messages';
export { scriptByInstructions } from './by-instructions';
export { demoScript } from './demo';
