/** Every `tiller` command's `--help` has examples, and each example uses a real command and its real flags. */
import { spawnSync } from 'node:child_process';
import type { Command } from 'commander';
import { program } from '../../src/cli/main';
import { temporalCli } from '../../src/cli/passthrough';
import { colourLine, useColour } from '../../src/cli/colour';

const settings = () => {
  throw new Error('help needs no connection');
};

function helpOf(cmd: Command): string {
  let out = '';
  cmd.configureOutput({ writeOut: (s) => (out += s), writeErr: (s) => (out += s) });
  cmd.outputHelp();
  return out;
}

const root = program(settings, () => undefined);
const commands = root.commands;

test('there are commands to check', () => {
  expect(commands.map((c) => c.name())).toEqual(expect.arrayContaining(['run', 'approve', 'deny', 'serve', 'replay']));
});

test.each(commands.map((c) => [c.name(), c] as const))('tiller %s --help has working examples', (name, cmd) => {
  const help = helpOf(cmd);
  const examples = help.split('Examples:')[1];
  expect(examples).toBeDefined();
  const lines = examples!
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.includes('tiller '));
  expect(lines.length).toBeGreaterThan(0);
  const flags = new Set(cmd.options.flatMap((o) => [o.long, o.short]).filter(Boolean));
  for (const line of lines) {
    const invocation = line.slice(line.indexOf('tiller ')).split('#')[0]!.split('|')[0]!.trim();
    const [, sub, ...rest] = invocation.split(/\s+/);
    expect(sub).toBe(name);
    // `tiller temporal …` passes everything on: its flags are the Temporal CLI's, checked against its own help.
    const known =
      name === 'temporal'
        ? spawnSync(
            temporalCli(),
            [
              ...rest.slice(
                0,
                rest.findIndex((w) => w.startsWith('-')),
              ),
              '--help',
            ],
            {
              encoding: 'utf8',
            },
          ).stdout
        : undefined;
    for (const flag of rest.filter((w) => w.startsWith('--'))) {
      if (known !== undefined) expect(known).toContain(`${flag} `);
      else expect(flags).toContain(flag);
    }
  }
});

describe('colours', () => {
  const tty = { isTTY: true };
  const pipe = { isTTY: false };
  test.each([
    ['a TTY', tty, {}, true],
    ['a pipe', pipe, {}, false],
    ['NO_COLOR on a TTY', tty, { NO_COLOR: '1' }, false],
    ['an empty NO_COLOR', tty, { NO_COLOR: '' }, true],
    ['TERM=dumb', tty, { TERM: 'dumb' }, false],
    ['FORCE_COLOR into a pipe', pipe, { FORCE_COLOR: '1' }, true],
    ['FORCE_COLOR=0 on a TTY', tty, { FORCE_COLOR: '0' }, false],
  ])('%s', (_name, stream, env, expected) => {
    expect(useColour(stream, env)).toBe(expected);
  });

  test('a coloured line keeps its text and symbol; colour off leaves it untouched', () => {
    const line = '✗ delete_file denied by alice';
    expect(colourLine(line, false)).toBe(line);
    const on = colourLine(line, true);
    expect(on).not.toBe(line);
    expect(on.replace(new RegExp(`${String.fromCharCode(27)}\\[\\d+m`, 'g'), '')).toBe(line);
    expect(colourLine('plain text', true)).toBe('plain text');
  });
});
