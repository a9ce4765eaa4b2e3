/**
 * A local Temporal dev server for a user's own tests and offline runs: the `temporal` CLI that Tiller
 * locates or installs (as `npx tiller dev` does), started on free ports with Tiller's search attributes.
 */
import { loadEnsureTemporal } from './package-root';
import { startDevServer, type DevServer, type DevServerOptions } from './dev-server';

/** Options for {@link startLocalTemporal}: those of the dev server, with the CLI found for you. */
export interface LocalTemporalOptions extends Omit<DevServerOptions, 'cli'> {
  /** Path to the `temporal` CLI (default: the one `npx tiller dev` uses, installed when missing). */
  cli?: string;
}

/**
 * Starts a Temporal dev server on loopback (free ports, in memory unless `dbFilename` is given) and
 * waits until it answers; `stop()` ends it. Point a worker and a client at its `address`.
 *
 * @example
 * ```ts
 * const temporal = await startLocalTemporal();
 * process.env.TEMPORAL_ADDRESS = temporal.address;
 * // … createWorker(), TillerClient.connect() …
 * await temporal.stop();
 * ```
 */
export async function startLocalTemporal(opts: LocalTemporalOptions = {}): Promise<DevServer> {
  const cli = opts.cli ?? loadEnsureTemporal().ensureTemporal({ quiet: true, needTestServer: false }).cli;
  return startDevServer({ ...opts, cli });
}
