/**
 * A worker of your own: your tool, your agents with their approval policy, hooks, model settings,
 * structured output, answer gate and dynamic instructions, Tiller's durable loop.
 */
import { createWorker, defineAgent, defineTool, Deny, Proceed } from '@tiller-agents/tiller';
import { z } from 'zod';

export const refund = defineTool({
  name: 'refund',
  description: 'Refund part or all of an order, in cents',
  input: z.object({ orderId: z.string(), cents: z.number().int().positive() }),
  // A real one would call the payment API with ctx.idempotencyKey, so a retried activity refunds once.
  execute: ({ orderId, cents }, ctx) => ({
    orderId,
    cents,
    confirmation: `RF-${orderId}-${cents}`,
    key: ctx.idempotencyKey,
  }),
});

export const support = defineAgent({
  name: 'support',
  instructions: 'You help customers with their orders. Refund exactly what they ask for, then say so briefly.',
  tools: ['refund'],
  approvals: { refund: { timeout: '3 days', remindEvery: '1 day' } }, // a human decides every refund
  modelSettings: { temperature: 0.2, maxTokens: 600, parallelToolCalls: false },
  hooks: [
    {
      name: 'audit',
      onApprovalPending: ({ call, reminder }) =>
        console.log(`audit: ${call.tool} waits for a human (reminder ${reminder})`),
      onToolEnd: (call) =>
        console.log(`audit: ${call.tool} ${JSON.stringify(call.args)} → ${call.result} in ${call.durationMs} ms`),
    },
  ],
});

/** Structured output: the answer is JSON of this shape, validated; `result.parsed` carries it. */
export const Triage = z.object({
  category: z.enum(['refund', 'delivery', 'other']),
  urgent: z.boolean(),
  summary: z.string(),
});

export const triage = defineAgent({
  name: 'triage',
  // Dynamic instructions: computed when the turn starts, recorded in history.
  instructions: ({ sessionId }) =>
    `Classify the customer's message.${sessionId ? ` It belongs to conversation ${sessionId}.` : ''}`,
  tools: [],
  output: Triage,
  modelSettings: { temperature: 0, seed: 7 },
});

/** An answer gate: a person approves the reply before the turn completes; a hook checks its tone first. */
export const mailer = defineAgent({
  name: 'mailer',
  instructions: 'Draft a short, polite reply to the customer.',
  tools: [],
  approveAnswer: { timeout: '2 days' },
  hooks: [
    { name: 'tone', approveAnswer: ({ text }) => (/refund/i.test(text) ? Deny('Do not promise refunds.') : Proceed) },
  ],
});

async function main(): Promise<void> {
  // Connection from TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE, task queue TILLER_TASK_QUEUE, model OPENAI_*.
  // Search attributes are registered on the namespace if missing (or the start fails naming `tiller setup`).
  // A second endpoint (e.g. a local model) for the triage agent when LOCAL_MODEL_URL is set:
  const local = process.env.LOCAL_MODEL_URL;
  const worker = await createWorker({
    agents: [support, local ? { ...triage, provider: 'local' } : triage, mailer],
    tools: [refund],
    ...(local && {
      providers: { local: { baseURL: local, ...(process.env.LOCAL_MODEL_KEY && { apiKeyEnv: 'LOCAL_MODEL_KEY' }) } },
    }),
  });
  console.log(`custom worker polling task queue ${worker.options.taskQueue}`);
  await worker.run();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
