/**
 * `tiller temporal <args…>`: the stock Temporal CLI that Tiller installed or found (as `tiller dev` does:
 * scripts/ensure-temporal.js — `TEMPORAL_CLI`, an earlier install, `temporal` on PATH, else an install),
 * run with this process's environment, so it connects with the same `TEMPORAL_*` settings (address,
 * namespace, TLS, API key, profile) as every other `tiller` command. The hints Tiller prints for the
 * stock CLI go through it, so they run where `temporal` is not on PATH.
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import type { Command } from 'commander';
import { CliError, EXIT } from './errors';
import { loadEnsureTemporal } from '../testing/package-root';

/** The Temporal CLI's path, or a CliError saying what was tried. */
export function temporalCli(): string {
  try {
    return loadEnsureTemporal().ensureTemporal({ quiet: true, needTestServer: false }).cli;
  } catch (err) {
    throw new CliError(`no Temporal CLI: ${(err as Error).message}`, EXIT.unavailable);
  }
}

/** Runs the Temporal CLI with `args` (its output and input are this process's); resolves to its exit code. */
export function temporalPassthrough(args: readonly string[]): Promise<number> {
  const cli = temporalCli();
  return new Promise((resolve, reject) => {
    const child = spawn(cli, args, { stdio: 'inherit' });
    child.on('error', (err) => reject(new CliError(`could not run ${cli}: ${err.message}`, EXIT.unavailable)));
    child.on('close', (code, signal) => resolve(code ?? 128 + (signal ? (os.constants.signals[signal] ?? 0) : 0)));
  });
}

/** Registers `tiller temporal` on `cmd`: every argument and option after it goes to the Temporal CLI. */
export function addTemporalCommand(cmd: Command, done: (code: number) => void): void {
  cmd.enablePositionalOptions();
  cmd
    .command('temporal')
    .description(
      'run the Temporal CLI Tiller uses (found or installed as `tiller dev` does) with the same TEMPORAL_* settings',
    )
    .argument('[args...]', 'its arguments, e.g. workflow list')
    .helpOption(false)
    .allowUnknownOption()
    .allowExcessArguments()
    .passThroughOptions()
    .action(async (args: string[]) => done(await temporalPassthrough(args)));
}
