/**
 * A loopback port that was free a moment ago: for Hubs that must know each other's address
 * before they start (`cihub demo`).
 *
 * Picked below the range the kernel hands out on its own (32768-60999 on Linux, 49152-65535 on
 * macOS), and checked free by listening on it. A port from listen(0) comes out of that range, which
 * is also where the local end of every outbound connection comes from: the demo's first Hub probes
 * its engines while the next ones start, so such a port could be taken before its Hub listened.
 * The test helpers saw it happen in CI ("Port 39693 on 127.0.0.1 is already in use", 46baaa8).
 */
import { createServer } from 'node:net';

export const FREE_PORT_MIN = 20_000;
export const FREE_PORT_MAX = 32_767;
/** Ports tried before giving up: the range holds 12,768, so running out means the machine is out of ports. */
const TRIES = 100;

function randomPort(): number {
  return FREE_PORT_MIN + Math.floor(Math.random() * (FREE_PORT_MAX - FREE_PORT_MIN + 1));
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** The first port `pick` offers that nothing listens on (random in FREE_PORT_MIN-FREE_PORT_MAX unless a test says otherwise). */
export async function freeLoopbackPort(pick: () => number = randomPort): Promise<number> {
  for (let i = 0; i < TRIES; i++) {
    const port = pick();
    if (await isFree(port)) return port;
  }
  throw new Error(`no free loopback port between ${FREE_PORT_MIN} and ${FREE_PORT_MAX} in ${TRIES} tries`);
}
