/** Inline turn ids (src/core/inline-turns.ts) and the decide commands printed for such a turn. */
import { inlineTurnId, sessionOfTurn, workflowOfTurn } from '../../src/core/inline-turns';
import { decideHints } from '../../src/core/hints';

test("an inline turn's id names its session; any other id names its own workflow", () => {
  expect(inlineTurnId('s-1', 3)).toBe('s-1#turn-3');
  expect(sessionOfTurn('s-1#turn-3')).toBe('s-1');
  expect(workflowOfTurn('s-1#turn-3')).toBe('s-1');
  // A session id may itself hold `#`: the last `#turn-<n>` is the turn's.
  expect(sessionOfTurn('team#a#turn-12')).toBe('team#a');
  for (const id of ['s-1-turn-3', 's-1#turn-', 's-1#turn-0', 's-1#turn-3x', '#turn-1', 's-1#turn-03'])
    expect(sessionOfTurn(id)).toBeUndefined();
  expect(workflowOfTurn('s-1-turn-3')).toBe('s-1-turn-3');
});

test("an inline turn's stock-CLI command goes to the session and names the turn; a turn's own does not", () => {
  const inline = decideHints({ turnId: 's-1#turn-2', id: 'call_1' })!;
  expect(inline.approve).toBe("npx tiller approve 's-1#turn-2' call_1");
  expect(inline.update(true)).toBe(
    `npx tiller temporal workflow update execute --workflow-id s-1 --name decide --input '{"turnId":"s-1#turn-2","id":"call_1","approved":true}'`,
  );
  const own = decideHints({ turnId: 't-1', id: 'call_1' })!;
  expect(own.update(false)).toBe(
    `npx tiller temporal workflow update execute --workflow-id t-1 --name decide --input '{"id":"call_1","approved":false}'`,
  );
});
