/**
 * Hostile inputs to `tiller audit verify` (an export anyone may hand you) and to `tiller eval --folder`
 * (histories from anywhere): each has a defined outcome — a refusal naming the line or file — never a
 * crash, a hang or an unbounded read.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chainRows, formatAudit, verifyExport, type AuditEntry } from '../../src/audit';
import { readHistoryFolder } from '../../src/eval/history-file';
import { readExportFile } from '../../src/audit/format';

const entry = (n: number, extra: Partial<AuditEntry> = {}): AuditEntry => ({
  turnId: `t-${n}`,
  outcome: 'approved',
  tool: 'stamp',
  channel: 'cli',
  via: 'update',
  ...extra,
});
const deep = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tiller-hostile-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('audit verify', () => {
  test('an export whose arguments nest 100,000 levels is refused by its row, not a stack overflow', () => {
    const [row] = chainRows([entry(1)]);
    const line = JSON.stringify(row).replace('"tool":"stamp"', `"tool":"stamp","args":${deep(100_000)}`);
    const verdict = verifyExport(`${line}\n`);
    expect(verdict).toMatchObject({ ok: false, reason: expect.stringMatching(/^row 1: nested deeper/) });
  });

  test('garbage, NUL bytes, an unterminated CSV quote and prototype keys are refused, naming the row', () => {
    expect(verifyExport('\u0000\u0001garbage\n')).toMatchObject({ ok: false });
    const csv = formatAudit(chainRows([entry(1), entry(2)]), 'csv');
    expect(verifyExport(`${csv}"${'x'.repeat(100_000)}`)).toMatchObject({ ok: false });
    const [row] = chainRows([entry(1)]);
    const polluted = JSON.stringify(row).replace('{', '{"__proto__":{"polluted":true},');
    expect(verifyExport(`${polluted}\n`)).toMatchObject({ ok: false, reason: expect.stringMatching(/^row 1: /) });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test('an empty export verifies as zero rows; blank lines are skipped', () => {
    expect(verifyExport('')).toMatchObject({ ok: true, rows: 0 });
    const text = formatAudit(chainRows([entry(1), entry(2)]), 'jsonl');
    expect(verifyExport(`\n\n${text}\n\n`)).toMatchObject({ ok: true, rows: 2 });
  });

  test('a file that is not a regular file, or is larger than the bound, is refused before it is read', () => {
    expect(() => readExportFile(dir)).toThrow(/not a regular file/);
    const fifo = path.join(dir, 'pipe.jsonl');
    execFileSync('mkfifo', [fifo]);
    expect(() => readExportFile(fifo)).toThrow(/not a regular file/);
    const big = path.join(dir, 'big.jsonl');
    fs.writeFileSync(big, '');
    fs.truncateSync(big, 600 * 1024 * 1024); // sparse: no disk used
    expect(() => readExportFile(big)).toThrow(/larger than/);
  });
});

describe('eval --folder', () => {
  const folder = (name: string) => {
    const d = path.join(dir, name);
    fs.mkdirSync(d);
    return d;
  };

  test('a FIFO, a directory or a device named *.json is refused by name, not read', () => {
    const f1 = folder('fifo');
    execFileSync('mkfifo', [path.join(f1, 'a.json')]);
    expect(() => readHistoryFolder(f1)).toThrow(/a\.json: not a regular file/);
    const f2 = folder('dir');
    fs.mkdirSync(path.join(f2, 'b.json'));
    expect(() => readHistoryFolder(f2)).toThrow(/b\.json: not a regular file/);
    const f3 = folder('dev');
    fs.symlinkSync('/dev/zero', path.join(f3, 'c.json'));
    expect(() => readHistoryFolder(f3)).toThrow(/c\.json: not a regular file/);
  });

  test('deep, malformed and oversized histories are refused naming the file', () => {
    const f = folder('bad');
    fs.writeFileSync(path.join(f, 'deep.json'), `{"events":${deep(100_000)}}`);
    expect(() => readHistoryFolder(f)).toThrow(/deep\.json: not an exported history/);
    fs.rmSync(path.join(f, 'deep.json'));
    fs.writeFileSync(path.join(f, 'nul.json'), '\u0000{');
    expect(() => readHistoryFolder(f)).toThrow(/nul\.json: not JSON/);
    fs.rmSync(path.join(f, 'nul.json'));
    fs.writeFileSync(path.join(f, 'proto.json'), '{"__proto__":{"polluted":1},"events":[{"eventId":"1"}]}');
    expect(() => readHistoryFolder(f)).not.toThrow(/polluted/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    fs.rmSync(path.join(f, 'proto.json'));
    const big = path.join(f, 'big.json');
    fs.writeFileSync(big, '');
    fs.truncateSync(big, 65 * 1024 * 1024);
    expect(() => readHistoryFolder(f)).toThrow(/big\.json: larger than/);
  });
});
