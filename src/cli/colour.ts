/**
 * Colours for the terminal, only where they help: a TTY, `NO_COLOR` unset, `TERM` not `dumb`
 * (`FORCE_COLOR` forces them on, `FORCE_COLOR=0` off; https://no-color.org). Lines keep their symbols, so nothing depends
 * on colour. `node:util` styleText, no dependency.
 */
import { styleText } from 'node:util';

type Style = Parameters<typeof styleText>[0];

export function useColour(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '') return env.FORCE_COLOR !== '0';
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.TERM === 'dumb') return false;
  return !!stream.isTTY;
}

/** The style of an event line, from its leading symbol. */
const BY_SYMBOL: Record<string, Style> = {
  '●': 'bold',
  '▸': 'cyan',
  '⏸': 'yellow',
  '⌛': 'yellow',
  '✔': 'green',
  '✓': 'green',
  '★': 'magenta',
  '⚙': 'blue',
  '✗': 'red',
  '⚠': 'yellow',
  '■': 'bold',
};

export function colourLine(line: string, on: boolean): string {
  if (!on) return line;
  const style = BY_SYMBOL[Array.from(line)[0] ?? ''];
  // useColour already decided; styleText must not second-guess it from process.stdout.
  return style ? styleText(style, line, { validateStream: false }) : line;
}
