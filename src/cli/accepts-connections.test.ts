import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { acceptsConnections, portOf } from './accepts-connections.js';

describe('portOf', () => {
  for (const [url, port] of [
    ['http://127.0.0.1:5002', 5002],
    ['http://127.0.0.1:80', 80],
    ['http://127.0.0.1', 80],
    ['https://[::1]:443', 443],
    ['http://[::1]:8080', 8080],
  ] as const) {
    it(`reads ${port} from ${url}`, () => assert.equal(portOf(new URL(url)), port));
  }
});

describe('acceptsConnections', () => {
  it('is true where something listens and false once it has stopped', async () => {
    const server = createServer((socket) => socket.destroy());
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    assert.equal(await acceptsConnections(url), true);
    await new Promise((resolve) => server.close(resolve));
    assert.equal(await acceptsConnections(url), false);
  });
});
