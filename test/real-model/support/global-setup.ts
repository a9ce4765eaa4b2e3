/**
 * The real-model run's shared servers: the integration suite's Temporal dev server and workflow bundle
 * (test/support/global-setup.ts), and one llama.cpp `llama-server` with the model that
 * scripts/ensure-llama.js installed (it installs them when missing).
 */
import { startLlamaServer, type LlamaServer } from '../../../src/testing/llama-server';
import startTemporalAndBundle from '../../support/global-setup';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ensureLlama } = require('../../../scripts/ensure-llama.js') as {
  ensureLlama(opts: { quiet: boolean }): Promise<{ server: string; model: string; chatTemplate: string }>;
};

declare global {
  var __TILLER_LLAMA_SERVER__: LlamaServer | undefined;
}

export default async function globalSetup(): Promise<void> {
  const { server, model, chatTemplate } = await ensureLlama({ quiet: true });
  const llama = await startLlamaServer({ server, model, chatTemplateFile: chatTemplate });
  globalThis.__TILLER_LLAMA_SERVER__ = llama;
  process.env.TILLER_TEST_LLAMA_URL = llama.url;
  process.env.TILLER_TEST_LLAMA_MODEL = llama.model;
  // For tests that start a server of their own (to stop it, or to start it misconfigured).
  process.env.TILLER_TEST_LLAMA_BIN = server;
  process.env.TILLER_TEST_LLAMA_GGUF = model;
  process.env.TILLER_TEST_LLAMA_TEMPLATE = chatTemplate;
  await startTemporalAndBundle();
}
