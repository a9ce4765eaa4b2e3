/**
 * Free ports for servers the tests, the bench and `tiller dev` start. A port is picked, its listener
 * closed, and the server binds it later: between the two, the kernel may hand the same port to any
 * outgoing connection when it lies in the ephemeral range (/proc/sys/net/ipv4/ip_local_port_range),
 * and a restarted dev server then died with "bind: address already in use" (issue 34). So ports are
 * picked below that range, where only an explicit bind can take them; checked free by binding them.
 */
import fs from 'node:fs';
import net from 'node:net';

/** The lowest port handed out here: above well-known and most registered service ports. */
const LOWEST = 15_000;

/** The kernel's ephemeral range `[low, high]`, or undefined where it cannot be read (not Linux). */
export function ephemeralRange(file = '/proc/sys/net/ipv4/ip_local_port_range'): [number, number] | undefined {
  try {
    const [low, high] = fs.readFileSync(file, 'utf8').trim().split(/\s+/).map(Number);
    return Number.isInteger(low) && Number.isInteger(high) ? [low!, high!] : undefined;
  } catch {
    return undefined;
  }
}

/** Binds `port` (0: any) on `host` and closes it again; resolves the port bound, or undefined if taken. */
function tryBind(port: number, host: string): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', (err: NodeJS.ErrnoException) =>
      err.code === 'EADDRINUSE' || err.code === 'EACCES' ? resolve(undefined) : reject(err),
    );
    server.listen({ port, host, exclusive: true }, () => {
      const bound = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(bound));
    });
  });
}

/**
 * A port free on `host` now, outside the ephemeral range when there are at least 1,000 ports between
 * 15000 and its start (random among them: concurrent pickers rarely collide, and a collision is seen
 * by the bind check); otherwise whatever the kernel gives.
 */
export async function freePort(host = '127.0.0.1', range = ephemeralRange()): Promise<number> {
  const below = range ? range[0] - LOWEST : 0;
  if (below >= 1_000) {
    for (let tries = 0; tries < 50; tries++) {
      const port = await tryBind(LOWEST + Math.floor(Math.random() * below), host);
      if (port !== undefined) return port;
    }
  }
  const port = await tryBind(0, host);
  if (port === undefined) throw new Error(`no free port on ${host}`);
  return port;
}
