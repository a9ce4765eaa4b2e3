/**
 * Many gated calls in one model response, their previews finishing together. The server fails a
 * workflow task that is in flight when more than 100 events arrive for it (cause FORCE_CLOSE_COMMAND,
 * Temporal's `history.maximumBufferedEventsBatch`), and each activity's completion is two events. The
 * fuzz harness met it with 64 gated calls (seed 755501044): since at most 32 calls of a response run
 * (BOUNDS.callsPerResponse), their completions stay under the limit.
 */
import { z } from 'zod';
import { defineAgent } from '../../src/agents/define';
import { BOUNDS } from '../../src/core/bounds';
import { defineTool } from '../../src/tools/define';
import { useHarness, waitForState } from '../support/harness';
import { failedWorkflowTasks } from '../support/history';

const h = useHarness();

const CALLS = 64;
/** Every preview of the response waits here until the last of those that run has started. */
let started = 0;
let release!: () => void;
const together = new Promise<void>((resolve) => (release = resolve));

const wipe = defineTool({
  name: 'wipe',
  description: 'Wipes a disk.',
  input: z.object({ disk: z.number() }),
  preview: async ({ disk }) => {
    if (++started === Math.min(CALLS, BOUNDS.callsPerResponse)) release();
    await together;
    return `would wipe disk ${disk}`;
  },
  execute: ({ disk }) => `wiped disk ${disk}`,
});
const wiper = defineAgent({ name: 'wiper', instructions: 'Wipe disks.', tools: ['wipe'], approvals: { wipe: {} } });

test(`${CALLS} gated calls whose previews finish together: no workflow task fails, the first ${BOUNDS.callsPerResponse} wait for a person`, async () => {
  h.model.setScript([
    { toolCalls: Array.from({ length: CALLS }, (_, i) => ({ id: `w${i}`, name: 'wipe', arguments: { disk: i } })) },
    { content: 'done' },
  ]);
  const turnId = h.turnId('wipe');
  await h.withWorker(
    async () => {
      await h.tiller.startTurn({ agent: 'wiper', input: 'wipe them all', turnId });
      const waiting = await waitForState(
        h.tiller,
        turnId,
        (s) => s.pendingApprovals.length === BOUNDS.callsPerResponse,
        60_000,
      );
      expect(waiting.pendingApprovals.map((p) => p.preview)).toContain('would wipe disk 0');
      expect(await failedWorkflowTasks(h.client, turnId)).toEqual([]);
      await h.tiller.cancel(turnId);
    },
    { agents: [wiper], tools: [wipe] },
  );
  expect(started).toBe(BOUNDS.callsPerResponse);
});
