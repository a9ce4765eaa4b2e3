/**
 * Approve the first waiting call of a turn with the TypeScript client.
 *
 *   npx tsx examples/clients/approve.ts [<turn id>]
 *
 * Without a turn id it takes the oldest turn waiting for a human. Connection settings come from the
 * Temporal env config (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, profiles); TILLER_TASK_QUEUE as for the worker.
 */
// In your project: import { TillerClient } from '@tiller-agents/tiller';
import { TillerClient } from '../../src/client';

async function main() {
  const tiller = await TillerClient.connect();
  const turnId = process.argv[2] ?? (await tiller.pending({ limit: 1 }))[0]?.turnId;
  if (!turnId) throw new Error('no turn waits for a human');
  const state = await tiller.state(turnId);
  const waiting = state.pendingApprovals[0];
  if (!waiting) throw new Error(`turn ${turnId} has no pending approval (status ${state.status})`);
  console.log(`approving ${waiting.tool} ${JSON.stringify(waiting.args)} on ${turnId}`);
  // The digest binds the approval to the arguments shown: a changed call would be refused.
  const decision = await tiller.decide(turnId, {
    id: waiting.id,
    approved: true,
    approver: 'example-script',
    argsDigest: waiting.argsDigest,
  });
  console.log(JSON.stringify(decision));
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
