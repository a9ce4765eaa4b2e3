// examples/quickstart/worker.ts: your own tool and agent, run by a Tiller worker.
import { createWorker, defineAgent, defineTool } from '@tiller-agents/tiller';
import { z } from 'zod';

// A tool: what the model reads, a zod schema for its arguments, and the code to run (a Temporal activity).
const refund = defineTool({
  name: 'refund',
  description: 'Refund part or all of an order, in cents',
  input: z.object({ orderId: z.string(), cents: z.number().int().positive() }),
  // A retried attempt gets the same idempotency key: pass it to the payment API so money moves once.
  execute: async ({ orderId, cents }, ctx) => ({ orderId, cents, confirmation: `RF-${ctx.idempotencyKey}` }),
});

// An agent: instructions, the tools it may call, which calls wait for a person, and hooks that observe.
const support = defineAgent({
  name: 'support',
  instructions: 'You help customers with their orders. Refund exactly what they ask for, then say so briefly.',
  tools: ['refund'],
  approvals: { refund: { timeout: '3 days' } }, // a person approves every refund, within 3 days
  hooks: [{ name: 'audit', onToolEnd: (call) => console.log(`audit: ${call.tool} ran in ${call.durationMs} ms`) }],
});

// Temporal from TEMPORAL_ADDRESS (default localhost:7233), task queue TILLER_TASK_QUEUE, model OPENAI_*.
createWorker({ agents: [support], tools: [refund] })
  .then((worker) => {
    console.log(`worker ready on task queue ${worker.options.taskQueue}`);
    return worker.run();
  })
  .catch((err) => {
    console.error(err);
    process.exit(1);
  });
