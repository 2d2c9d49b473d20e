/**
 * A loopback port where every connection is refused for as long as the test process runs.
 *
 * The tests used to listen on a port and close it again. That left the port free: another process
 * on the machine (a test file running beside this one starts engines and Hubs all the time) could
 * listen there before the test dialled it, and the test would then meet a server where it counted
 * on a refusal.
 *
 * Here the port is the local end of a loopback connection this process keeps open. No socket
 * listens on it, so a connection to it is answered with a reset (ECONNREFUSED). And nothing else
 * can listen there while the connection lives: its socket was bound by connect() without
 * SO_REUSEADDR, so Linux refuses an explicit bind of the port (EADDRINUSE, on 127.0.0.1, 0.0.0.0
 * and ::) and never hands it out for listen(0). Checked on Linux 6.18: a connection was refused,
 * all three binds failed, and 3,000 listen(0) calls beside the held port never got it.
 */
import { connect, createServer, type AddressInfo } from 'node:net';

let held: Promise<number> | null = null;

/** The refusing port; every caller in this process shares the one connection that holds it. */
export function refusedPort(): Promise<number> {
  held ??= hold();
  return held;
}

/** `http://127.0.0.1:<refusedPort()>`. */
export async function refusedUrl(): Promise<string> {
  return `http://127.0.0.1:${await refusedPort()}`;
}

async function hold(): Promise<number> {
  // Neither end may keep the test process alive once its tests are done.
  const server = createServer((accepted) => accepted.unref());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref();
  const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  socket.unref();
  return socket.localPort!;
}
