/**
 * The audit export's two formats, and reading them back for `verify`: JSON Lines (one row a line) and
 * CSV (a header, one row a line; objects as JSON in their cell). Both round-trip exactly, so a CSV
 * verifies like JSON Lines. Reading is bounded and checked by the row schema. Pure.
 */
import { BOUNDS, deeperThan } from '../core/bounds';
import { readBoundedFile } from '../eval/bounded-file';
import { AuditRow } from './schemas';

/** The CSV columns, in order. */
export const CSV_COLUMNS = [
  'row',
  'turnId',
  'runId',
  'agent',
  'session',
  'outcome',
  'tool',
  'toolCallId',
  'argsDigest',
  'args',
  'editedArgs',
  'approver',
  'channel',
  'via',
  'scope',
  'reason',
  'turnStartedAt',
  'at',
  'trust',
  'prev',
  'hash',
] as const satisfies readonly (keyof AuditRow)[];

/** At most this many rows are read back, and characters per line. */
export const READ_BOUNDS = { rows: 5_000_000, lineChars: 1_000_000, fileBytes: 256 * 1024 * 1024 } as const;

/**
 * An export's text from `file`: a regular file of at most `READ_BOUNDS.fileBytes` (a larger trail is
 * exported and verified in parts, by `--since` / `--until`).
 */
export function readExportFile(file: string): string {
  return readBoundedFile(file, READ_BOUNDS.fileBytes);
}

/** One row as a JSON Lines line (without the newline). */
export const jsonLine = (row: AuditRow): string => JSON.stringify(row);

const quote = (s: string) => (/[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);

/** Columns whose cell is JSON (any value); every other column is a plain string, `row` a number. */
const JSON_COLUMNS: ReadonlySet<string> = new Set(['args', 'editedArgs', 'trust']);

/** One CSV line: strings as they are, `row` as digits, the JSON columns as JSON, absent as empty. */
export function csvLine(row: AuditRow): string {
  return CSV_COLUMNS.map((c) => {
    const v = row[c];
    if (v === undefined) return '';
    if (JSON_COLUMNS.has(c)) return quote(JSON.stringify(v));
    return quote(String(v));
  }).join(',');
}

/** The CSV header line: the columns in their order. */
export const csvHeader = (): string => CSV_COLUMNS.join(',');

/** Splits CSV text into records (RFC 4180 quoting). */
function csvRecords(text: string): string[][] {
  const out: string[][] = [];
  let record: string[] = [];
  let cell = '';
  let quoted = false;
  const endRecord = () => {
    record.push(cell);
    out.push(record);
    if (out.length > READ_BOUNDS.rows) throw new Error(`more than ${READ_BOUNDS.rows} rows`);
    record = [];
    cell = '';
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted && ch === '"' && text[i + 1] === '"') {
      cell += '"';
      i++;
    } else if (ch === '"') {
      quoted = !quoted;
    } else if (quoted) {
      cell += ch;
    } else if (ch === ',') {
      record.push(cell);
      cell = '';
    } else if (ch === '\n') {
      endRecord();
    } else if (ch !== '\r') {
      cell += ch;
    }
  }
  if (cell || record.length) endRecord();
  return out;
}

/** Rows from an export's text, JSON Lines or CSV (by its first line); throws naming the first bad line. */
export function parseExport(text: string): AuditRow[] {
  const csv = text.startsWith(`${CSV_COLUMNS[0]},`);
  const raw: unknown[] = csv
    ? csvRecords(text)
        .slice(1)
        .map((cells) => {
          const row: Record<string, unknown> = {};
          CSV_COLUMNS.forEach((c, i) => {
            const v = cells[i] ?? '';
            if (v === '') return;
            row[c] = c === 'row' ? Number(v) : JSON_COLUMNS.has(c) ? (JSON.parse(v) as unknown) : v;
          });
          return row;
        })
    : text
        .split('\n')
        .filter((l) => l.trim())
        .map((l, i) => {
          if (l.length > READ_BOUNDS.lineChars || i >= READ_BOUNDS.rows) throw new Error(`line ${i + 1}: too long`);
          return JSON.parse(l) as unknown;
        });
  return raw.map((r, i) => {
    // A row Tiller wrote nests a few levels around arguments of at most BOUNDS.jsonDepth.
    if (deeperThan(r, BOUNDS.jsonDepth + 4)) throw new Error(`row ${i + 1}: nested deeper than an audit row`);
    const parsed = AuditRow.safeParse(r);
    if (!parsed.success) throw new Error(`row ${i + 1}: ${parsed.error.issues[0]?.message ?? 'not an audit row'}`);
    return parsed.data;
  });
}
