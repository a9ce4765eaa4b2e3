/** `defineAgent` refuses, with a clear error, what a turn could not run as the agent means it. */
import { defineAgent } from '../../src/agents/define';

test('defineAgent refuses an unknown api or onTruncated', () => {
  const base = { name: 'a', instructions: 'x', tools: [] };
  expect(() => defineAgent({ ...base, api: 'completions' as never })).toThrow(
    "agent a: api must be 'chat' or 'responses'",
  );
  expect(() => defineAgent({ ...base, onTruncated: 'continue' as never })).toThrow(
    "agent a: onTruncated must be 'fail' or 'accept'",
  );
  expect(defineAgent({ ...base, api: 'responses', onTruncated: 'accept' })).toMatchObject({ api: 'responses' });
});

test('an escalation stage without an approver list is refused when the agent is defined (not "anyone")', () => {
  const base = { name: 'e', instructions: 'x', tools: ['wire'] };
  const escalate = (stage: unknown) => ({ approvals: { wire: { timeout: '1 hour', onTimeout: { escalate: stage } } } });
  expect(() => defineAgent({ ...base, ...escalate({ timeout: '1 day' }) } as never)).toThrow(
    'agent e: the escalation of wire needs approvers, a list of names or group:<name> (an empty list means nobody)',
  );
  expect(() => defineAgent({ ...base, ...escalate({ approvers: 'alice' }) } as never)).toThrow(/needs approvers/);
  expect(() => defineAgent({ ...base, ...escalate({ approvers: [''] }) } as never)).toThrow(/needs approvers/);
  expect(() => defineAgent({ ...base, ...escalate({ approvers: [] }) } as never)).not.toThrow();
  expect(() => defineAgent({ ...base, ...escalate({ approvers: ['group:leads'] }) } as never)).not.toThrow();
  expect(() => defineAgent({ ...base, approveAnswer: { onTimeout: { escalate: {} } } as never })).toThrow(
    'agent e: the escalation of final_answer needs approvers',
  );
});
