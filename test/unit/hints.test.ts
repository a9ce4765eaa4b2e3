/** The printed commands (src/core/hints.ts): words a shell reads back as they were, and the decider a rule needs. */
import { spawnSync } from 'node:child_process';
import { decideHints, deciderFor, shellQuote, tillerCommand } from '../../src/core/hints';

const words = ['turn-1', "Jane O'Neil", 'a b', '$HOME', '`id`', '{"id":"c1","approved":true}', 'x;rm -rf /', '', 'ü'];

test.each(words)('%j reaches the command as it was', (word) => {
  const r = spawnSync('sh', ['-c', `printf %s ${shellQuote(word)}`], { encoding: 'utf8' });
  expect(r.stdout).toBe(word);
});

test('the decider: anyone, a name first, else a group; nobody for an empty rule', () => {
  expect(deciderFor(undefined)).toEqual({});
  expect(deciderFor(['group:sre', 'dba-lead'])).toEqual({ as: 'dba-lead' });
  expect(deciderFor(['group:sre'])).toEqual({ group: 'sre' });
  expect(deciderFor([])).toBeUndefined();
  expect(decideHints({ turnId: 't', id: 'c', approvers: [] })).toBeUndefined();
});

test('the connection is printed as env only when it is not the default', () => {
  expect(tillerCommand(['state', 't'], { address: 'localhost:7233', namespace: 'default' })).toBe('npx tiller state t');
  expect(tillerCommand(['state', 't'], { address: 'h:1', namespace: 'ns' })).toBe(
    'TEMPORAL_ADDRESS=h:1 TEMPORAL_NAMESPACE=ns npx tiller state t',
  );
  const hints = decideHints({ turnId: 't', id: 'c', approvers: ["Jane O'Neil"] })!;
  expect(hints.approve).toBe(`npx tiller approve t c --as 'Jane O'\\''Neil'`);
  expect(hints.update(false)).toBe(
    `npx tiller temporal workflow update execute --workflow-id t --name decide --input '{"id":"c","approved":false,"approver":"Jane O'\\''Neil"}'`,
  );
});
