/**
 * Ports a dev server is started on cannot be taken between pick and bind (issue 34): the ones picked
 * here lie below the kernel's ephemeral range, and a server that dies while starting — as one did when
 * an outgoing connection took one of the internal ports its CLI picked — is started again even on a
 * fixed frontend port (a restart after kill -9 keeps its port).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ephemeralRange, freePort } from '../../src/testing/free-port';
import { isTemporalReachable, startDevServer } from '../../src/testing/dev-server';

test('picked ports lie below the ephemeral range, so no outgoing connection is handed one', async () => {
  const range = ephemeralRange();
  expect(range).toBeDefined();
  const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
  for (const port of ports) {
    expect(port).toBeGreaterThanOrEqual(15_000);
    expect(port).toBeLessThan(range![0]);
  }
});

test('a dev server on a fixed port that dies while starting is started again', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tiller-devport-'));
  // The CLI's first start fails as the one in issue 34 did; the next starts run the real CLI.
  const cli = path.join(dir, 'temporal');
  const marker = path.join(dir, 'failed-once');
  fs.writeFileSync(
    cli,
    `#!/bin/sh\nif [ ! -e '${marker}' ]; then touch '${marker}'; ` +
      `echo 'Failed to start gRPC listener: listen tcp 127.0.0.1:40657: bind: address already in use' >&2; exit 1; fi\n` +
      `exec '${process.env.TILLER_TEST_TEMPORAL_CLI!}' "$@"\n`,
    { mode: 0o700 },
  );
  const port = await freePort();
  const server = await startDevServer({ cli, port });
  try {
    expect(fs.existsSync(marker)).toBe(true);
    expect(server.address).toBe(`127.0.0.1:${port}`);
    expect(await isTemporalReachable(server.address)).toBe(true);
  } finally {
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
