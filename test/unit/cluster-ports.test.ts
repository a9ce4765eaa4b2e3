/**
 * `npm run cluster -- up` checks its ports before it starts anything (issue 34): a taken port is
 * named with what the cluster wanted it for, and a `--port` whose ports are all free is suggested.
 * Ports here are random ones below 17300 (the cluster's PostgreSQL port is the frontend's + 48199).
 */
import net from 'node:net';
import { clusterPorts } from '../../scripts/cluster/index';
import { frontendPortRange } from '../../scripts/cluster/ports';
import { assertClusterPortsFree, clusterPortList, portIsFree } from '../../scripts/cluster/port-check';

const opts = { workers: 2, gateway: true, ui: true };

/** A random frontend port in [15000, 17300) all of whose cluster ports are free now. */
async function freeFrontend(): Promise<number> {
  for (;;) {
    const port = 15_000 + Math.floor(Math.random() * 2_300);
    const all = clusterPortList(port, opts, clusterPorts);
    if ((await Promise.all(all.map((p) => portIsFree(p.port)))).every(Boolean)) return port;
  }
}

async function listen(port: number): Promise<net.Server> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return server;
}

test('every port the cluster listens on is checked: 19 of them with two workers, the gateway and the UI', () => {
  const list = clusterPortList(7233, opts, clusterPorts);
  expect(list).toHaveLength(19);
  expect(new Set(list.map((p) => p.port)).size).toBe(19);
  expect(list).toContainEqual({ port: 7233, use: 'Temporal frontend gRPC' });
  expect(list).toContainEqual({ port: 55432, use: 'PostgreSQL' });
  expect(list).toContainEqual({ port: 8080, use: 'the Temporal UI' });
});

test('a taken frontend port is named, with a --port whose ports are all free', async () => {
  const frontend = await freeFrontend();
  const other = await freeFrontend();
  const squatter = await listen(frontend);
  try {
    await expect(assertClusterPortsFree(frontend, opts, clusterPorts, [other])).rejects.toThrow(
      new RegExp(`taken by another process:\\n  ${frontend} \\(Temporal frontend gRPC\\)\\n[^]*--port ${other}\``),
    );
  } finally {
    squatter.close();
  }
});

test('a taken internal port (history membership) is named too; all free passes', async () => {
  const frontend = await freeFrontend();
  const membership = clusterPorts(frontend).membership.history!;
  const squatter = await listen(membership);
  try {
    await expect(assertClusterPortsFree(frontend, opts, clusterPorts, [])).rejects.toThrow(
      `${membership} (Temporal history membership)`,
    );
  } finally {
    squatter.close();
  }
  await expect(assertClusterPortsFree(frontend, opts, clusterPorts, [])).resolves.toBeUndefined();
});

test('the frontend ports offered are those at which every cluster port can exist (issue: --port 27233 crashed the port check)', () => {
  const { min, max } = frontendPortRange();
  expect({ min, max }).toEqual({ min: 1324, max: 17336 });
  const ports = (frontend: number) => clusterPortList(frontend, opts, clusterPorts).map((p) => p.port);
  for (const frontend of [min, max]) {
    expect(Math.min(...ports(frontend))).toBeGreaterThanOrEqual(1024);
    expect(Math.max(...ports(frontend))).toBeLessThanOrEqual(65535);
  }
  expect(Math.max(...ports(max + 1))).toBeGreaterThan(65535);
  expect(Math.min(...ports(min - 1))).toBeLessThan(1024);
});
