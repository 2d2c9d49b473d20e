/**
 * The ports `cihub demo` gives its Hubs before any of them listens (each must know the others'
 * addresses). A port from listen(0) comes out of the range the kernel also hands out as the local
 * end of outbound connections, and the first Hub probes its engines while the next ones are still
 * starting, so a port picked that way could be taken before its Hub bound it: the test helpers
 * met exactly this in CI ("Port 39693 on 127.0.0.1 is already in use", fixed there in 46baaa8).
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { FREE_PORT_MAX, FREE_PORT_MIN, freeLoopbackPort } from './free-port.js';

/** Where Linux starts handing out ports of its own by default (net.ipv4.ip_local_port_range); macOS starts at 49152. */
const LINUX_EPHEMERAL_LOW = 32_768;

const servers: Server[] = [];

async function listening(): Promise<Server> {
  const server = createServer();
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

const portOf = (server: Server) => (server.address() as AddressInfo).port;

describe('freeLoopbackPort', () => {
  after(async () => {
    await Promise.all(servers.filter((s) => s.listening).map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  });

  it('picks below the range the kernel hands out for listen(0) and outbound connections', async () => {
    assert.ok(FREE_PORT_MIN >= 1024 && FREE_PORT_MAX < LINUX_EPHEMERAL_LOW, `${FREE_PORT_MIN}-${FREE_PORT_MAX}`);
    for (let i = 0; i < 20; i++) {
      const port = await freeLoopbackPort();
      assert.ok(port >= FREE_PORT_MIN && port <= FREE_PORT_MAX, `port ${port}`);
    }
  });

  it('passes over a port something listens on', async () => {
    const taken = await listening();
    const free = await listening();
    const freePort = portOf(free);
    await new Promise<void>((resolve) => free.close(() => resolve()));
    const offered = [portOf(taken), portOf(taken), freePort];
    assert.equal(await freeLoopbackPort(() => offered.shift() ?? 0), freePort);
  });
});
