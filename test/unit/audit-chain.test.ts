/** The audit export's hash chain and formats (pure): round trips, and every kind of tampering caught. */
import { chainRows, formatAudit, verifyExport, type AuditEntry } from '../../src/audit';

const entries: AuditEntry[] = [
  { turnId: 't-1', outcome: 'approved', tool: 'refund', approver: 'Jane, "J" Doe', channel: 'cli', via: 'update' },
  {
    turnId: 't-1',
    outcome: 'denied',
    reason: 'no,\nnot "today"',
    channel: 'sdk',
    via: 'signal',
    args: { a: [1, 'x'] },
  },
  { turnId: 't-2', outcome: 'expired', channel: 'timeout', via: 'timeout', trust: { tool: 'x', scope: 'turn' } },
];

test.each(['jsonl', 'csv'] as const)('a %s export verifies, and a changed, removed or moved row does not', (format) => {
  const text = formatAudit(chainRows(entries), format);
  expect(verifyExport(text)).toMatchObject({ ok: true, rows: 3 });
  const lines = text.trimEnd().split(/\n(?=t|\{|\d)/);
  const changed = text.replace('t-2', 't-3');
  expect(verifyExport(changed)).toMatchObject({ ok: false, row: 3 });
  const header = format === 'csv' ? 1 : 0;
  const removed = [...lines.slice(0, header + 1), ...lines.slice(header + 2)].join('\n');
  expect(verifyExport(removed)).toMatchObject({ ok: false });
  const moved = [...lines.slice(0, header), lines[header + 1], lines[header], lines[header + 2]].join('\n');
  expect(verifyExport(moved)).toMatchObject({ ok: false });
});
