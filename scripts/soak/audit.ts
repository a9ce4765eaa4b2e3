/**
 * The soak's audit (issue 37): `auditTrail()` over every turn the soak drove, written beside its results
 * as soak-audit.jsonl, reconciled with what the soak's clients sent and were told (./audit-check.ts), its
 * chain verified, and one row changed in a copy to show `verify` catches it.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { auditTrail, formatAudit, verifyExport } from '../../src/audit';
import { dataConverterFromEnv } from '../../src/codec/encryption';
import { reconcileAudit, type AuditReconciliation } from './audit-check';
import type { DeciderName } from './scenarios';
import type { TurnRecord } from './turns';

/** The channel each client's decisions show: on the secured cluster the signal decider signals through the SDK. */
export function soakChannel(secured: boolean): (client: DeciderName) => string {
  const channels: Record<DeciderName, string> = {
    gateway: 'gateway',
    'tiller-cli': 'cli',
    'temporal-cli-update': 'temporal-cli',
    'temporal-cli-signal': secured ? 'sdk' : 'temporal-cli',
  };
  return (client) => channels[client];
}

export async function auditSoak(
  client: Client,
  records: readonly TurnRecord[],
  outDir: string,
  secured: boolean,
): Promise<AuditReconciliation> {
  const turnIds = [...new Set(records.flatMap((r) => (r.turnId ? [r.turnId] : [])))];
  const dataConverter = dataConverterFromEnv();
  const rows = await auditTrail({ client, turns: { turnIds }, ...(dataConverter && { dataConverter }) });
  const text = formatAudit(rows, 'jsonl');
  fs.mkdirSync(outDir, { recursive: true });
  fs.writeFileSync(path.join(outDir, 'soak-audit.jsonl'), text);
  const reconciliation = reconcileAudit(records, rows, soakChannel(secured));
  const verdict = verifyExport(text);
  reconciliation.verified = verdict.ok && verdict.rows === rows.length;
  if (!reconciliation.verified) reconciliation.problems.push(`the export does not verify: ${JSON.stringify(verdict)}`);
  // One row changed (its approver), every hash left as it was: verify must name that row.
  const middle = rows[Math.floor(rows.length / 2)];
  if (middle) {
    const changed = rows.map((r) => (r === middle ? { ...r, approver: `${r.approver ?? ''}-changed` } : r));
    const broken = verifyExport(formatAudit(changed, 'jsonl'));
    reconciliation.tamperCaught = !broken.ok && broken.row === middle.row;
    if (!reconciliation.tamperCaught)
      reconciliation.problems.push(`verify did not catch row ${middle.row} changed: ${JSON.stringify(broken)}`);
  }
  return reconciliation;
}
