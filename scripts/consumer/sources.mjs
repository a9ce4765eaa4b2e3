/**
 * The scratch projects' own code (scripts/consumer-test.mjs): an agent with a gated tool, and a program
 * that starts a local Temporal and the scripted model from `<package>/testing`, runs a worker, starts a
 * turn, prints `WAITING <address> <turnId> <callId>` when the call waits for a person (the test then runs
 * `npx tiller approve … --as ops` from the project's directory) and `RESULT ok …` when the turn ends well.
 */
export const INSTRUCTIONS = 'You refund orders. Call refund, then say what you did.';

export function agentSource(name) {
  return `import { defineAgent, defineTool } from '${name}';
import { z } from 'zod';

export const refunds: { orderId: string; cents: number }[] = [];

export const refund = defineTool({
  name: 'refund',
  description: 'Refund part or all of an order, in cents',
  input: z.object({ orderId: z.string(), cents: z.number().int().positive() }),
  execute: async ({ orderId, cents }) => {
    refunds.push({ orderId, cents });
    return { orderId, cents, refunded: true };
  },
});

export const support = defineAgent({
  name: 'support',
  instructions: ${JSON.stringify(INSTRUCTIONS)},
  tools: ['refund'],
  approvals: { refund: { approvers: ['ops'], timeout: '10 minutes' } },
});
`;
}

export function runSource(name, esm) {
  const kind = esm ? 'esm' : 'cjs';
  return `import { createWorker, TillerClient } from '${name}';
import { scriptByInstructions, startLocalTemporal, startScriptedModel } from '${name}/testing';
import { refund, refunds, support } from './agent${esm ? '.js' : ''}';

async function main(): Promise<void> {
  const temporal = await startLocalTemporal();
  const model = await startScriptedModel({
    script: scriptByInstructions({
      ${JSON.stringify(INSTRUCTIONS)}: [
        { toolCalls: [{ id: 'call_1', name: 'refund', arguments: { orderId: 'A-1001', cents: 1250 } }] },
        { content: 'Refunded 12.50 on A-1001.' },
      ],
    }),
  });
  process.env.TEMPORAL_ADDRESS = temporal.address;
  process.env.TILLER_TASK_QUEUE = 'scratch-${kind}';
  process.env.OPENAI_BASE_URL = model.url;
  process.env.OPENAI_API_KEY = 'offline';
  const worker = await createWorker({ agents: [support], tools: [refund] });
  const running = worker.run();
  const tiller = await TillerClient.connect();
  try {
    const turnId = 'consumer-${kind}-' + Date.now();
    await tiller.startTurn({ agent: 'support', input: 'Refund 12.50 on A-1001.', turnId });
    for (let i = 0; ; i++) {
      const summary = await tiller.summary(turnId);
      const waiting = summary.pendingApprovals[0];
      if (waiting) {
        console.log(\`WAITING \${temporal.address} \${turnId} \${waiting.id}\`);
        break;
      }
      if (i > 600) throw new Error('the turn never waited for an approval: ' + JSON.stringify(summary));
      await new Promise((r) => setTimeout(r, 100));
    }
    const result = await tiller.result(turnId);
    const ok = result.output === 'Refunded 12.50 on A-1001.' && refunds.length === 1 && refunds[0]?.cents === 1250;
    console.log(\`RESULT \${ok ? 'ok' : 'wrong'} \${JSON.stringify({ output: result.output, refunds })}\`);
    process.exitCode = ok ? 0 : 1;
  } finally {
    await tiller.close();
    worker.shutdown();
    await running;
    await model.close();
    await temporal.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
`;
}
