/**
 * `tiller audit`: every decision across turns (ids, a visibility query, a session, a folder of exported
 * histories, a time range) as JSON Lines or CSV, hash-chained; `tiller audit verify <file>` checks an
 * export's chain (src/audit).
 */
import fs from 'node:fs';
import type { Command } from 'commander';
import { auditTrail, formatAudit, inlineSessionsQuery, verifyExport } from '../audit';
import { readExportFile } from '../audit/format';
import { dataConverterFromEnv } from '../codec/encryption';
import type { TemporalSettings } from '../client/connect';
import { CliError, EXIT } from './errors';
import { connectTiller } from './temporal';
import { turnSelection } from './turn-selection';

interface AuditCommandOptions {
  query?: string;
  session?: string;
  folder?: string;
  since?: string;
  until?: string;
  limit?: number;
  format: string;
  args?: boolean;
  out?: string;
}

const HELP = [
  '',
  'Examples:',
  '  npx tiller audit --since 2026-12-01 --until 2026-12-08 > decisions.jsonl',
  '  npx tiller audit --query \'TillerAgent="assistant"\' --format csv --out decisions.csv',
  '  npx tiller audit turn-1234 --args             # with the tool arguments, not only their digest',
  '  npx tiller audit verify decisions.jsonl       # exit 1 when a row was changed, removed or reordered',
].join('\n');

/** Adds `tiller audit` and `tiller audit verify` to the program. */
export function registerAudit(cmd: Command, settings: () => TemporalSettings, done: (code: number) => void): void {
  const audit = cmd
    .command('audit')
    .description('export every approval decision and refused attempt across turns, hash-chained (JSON Lines, CSV)')
    .argument('[turns...]', 'turn ids')
    .option('--query <filter>', 'the turns matching this visibility query')
    .option('--session <id>', "a session's turns")
    .option('--folder <dir>', 'a folder of exported histories (JSON)')
    .option('--since <time>', 'turns started at or after this time (ISO-8601)')
    .option('--until <time>', 'turns started before this time (ISO-8601)')
    .option('--limit <n>', 'at most this many turns from a query', Number)
    .option('--format <format>', 'jsonl or csv', 'jsonl')
    .option('--args', 'include the tool arguments (default: their digest only)')
    .option('--out <file>', 'write the export here instead of stdout')
    .addHelpText('after', HELP)
    .action(async (turns: string[], o: AuditCommandOptions) => done(await auditCommand(settings, turns, o)));
  audit
    .command('verify')
    .description("check an audit export's hash chain")
    .argument('<file>', 'a JSON Lines or CSV export')
    .action((file: string) => done(verifyCommand(file)));
}

async function auditCommand(settings: () => TemporalSettings, turnIds: string[], o: AuditCommandOptions) {
  if (o.format !== 'jsonl' && o.format !== 'csv') throw new CliError('--format is jsonl or csv');
  const ranged = o.since !== undefined || o.until !== undefined;
  if (!turnIds.length && !o.query && !o.session && !o.folder && !ranged)
    throw new CliError(
      'give turn ids, --query, --session, --folder or --since/--until (see `npx tiller audit --help`)',
    );
  for (const t of [o.since, o.until])
    if (t !== undefined && Number.isNaN(Date.parse(t))) throw new CliError(`not a time: ${t}`);
  const needsTemporal = turnIds.length > 0 || o.query !== undefined || o.session !== undefined || ranged;
  const tiller = needsTemporal ? await connectTiller(settings()) : undefined;
  try {
    const dataConverter = dataConverterFromEnv();
    const rows = await auditTrail({
      turns: turnSelection(turnIds, o),
      ...(tiller && { client: tiller.temporal }),
      ...(dataConverter && { dataConverter }),
      ...(o.since !== undefined && { since: o.since }),
      ...(o.until !== undefined && { until: o.until }),
      includeArgs: o.args ?? false,
    });
    const text = formatAudit(rows, o.format);
    if (o.out) fs.writeFileSync(o.out, text);
    else process.stdout.write(text);
    process.stderr.write(
      `${rows.length} decisions${rows.length ? `; chain head ${rows[rows.length - 1]!.hash}` : ''}\n`,
    );
    // The trail reads turns' own histories: say so when sessions of inline turns fall in the range.
    if (tiller && ranged) {
      const { count } = await tiller.temporal.workflow.count(inlineSessionsQuery(o.since, o.until));
      if (count > 0)
        process.stderr.write(
          `note: ${count} session(s) in this range ran their turns inside the session (inlineTurns): their decisions are in no turn's history, so not in this trail (docs/sessions.md)\n`,
        );
    }
    return EXIT.ok;
  } finally {
    await tiller?.close().catch(() => undefined);
  }
}

function verifyCommand(file: string): number {
  let text: string;
  try {
    text = readExportFile(file);
  } catch (err) {
    throw new CliError((err as Error).message);
  }
  const verdict = verifyExport(text);
  if (verdict.ok) {
    process.stdout.write(`ok: ${verdict.rows} rows, chain head ${verdict.head}\n`);
    return EXIT.ok;
  }
  process.stdout.write(`BROKEN at row ${verdict.row}: ${verdict.reason}\n`);
  return EXIT.failed;
}
