/** A worker of your own: your tool, your agent with its approval policy and hooks, Tiller's durable loop. */
import { createWorker, defineAgent, defineTool } from 'tiller';
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

async function main(): Promise<void> {
  // Connection from TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE, task queue TILLER_TASK_QUEUE, model OPENAI_*.
  const worker = await createWorker({ agents: [support], tools: [refund] });
  console.log(`custom worker polling task queue ${worker.options.taskQueue}`);
  await worker.run();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
