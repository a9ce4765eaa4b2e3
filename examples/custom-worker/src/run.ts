/** Starts a `support` turn, approves the refund it asks for, and prints the turn's result as JSON. */
import { TillerClient } from '@tiller-agents/tiller';

async function main(): Promise<void> {
  const tiller = await TillerClient.connect(); // TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TILLER_TASK_QUEUE
  const input = process.argv[2] ?? 'Please refund 12.50 on order A-1001.';
  const { workflowId } = await tiller.startTurn({ agent: 'support', input });
  console.log(`turn ${workflowId} started`);
  for await (const event of tiller.watch(workflowId)) {
    if (event.type !== 'APPROVAL_REQUESTED') continue;
    console.log(`approving ${event.tool} ${JSON.stringify(event.args)}`);
    await tiller.approve(workflowId, event.toolCallId, { approver: 'custom-worker-example' });
  }
  console.log(JSON.stringify(await tiller.result(workflowId)));
  await tiller.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
