import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { closePooledParsers, nodeParserPool, type ParserPool } from './http-parser-pool.js';

/**
 * Sends `count` requests at once to `server`, each on a connection of its own that closes after
 * the answer. The server answers none until all have arrived (see serverHolding), so every
 * connection has a parser of its own at the same time.
 */
async function burst(server: Server, count: number): Promise<void> {
  const { port } = server.address() as AddressInfo;
  await Promise.all(
    Array.from({ length: count }, async () => {
      const res = await request(`http://127.0.0.1:${port}/`, { headers: { connection: 'close' }, reset: true });
      assert.equal(await res.body.text(), 'ok');
    }),
  );
}

/**
 * A server that holds each answer until `count` requests are waiting; holdFor(n) sets the count
 * for the next ones. allClosed() settles once no connection to it is open: a connection's parser
 * goes back to the pool when its socket closes, which can come just after the client has its answer.
 */
function serverHolding(count: number): { server: Server; holdFor: (n: number) => void; allClosed: () => Promise<void> } {
  let holding: ServerResponse[] = [];
  const server = createServer((_req, res) => {
    holding.push(res);
    if (holding.length < count) return;
    for (const r of holding) r.end('ok');
    holding = [];
  });
  let open = 0;
  let closedWaiters: (() => void)[] = [];
  server.on('connection', (socket) => {
    open += 1;
    socket.once('close', () => {
      open -= 1;
      if (open > 0) return;
      for (const resolve of closedWaiters) resolve();
      closedWaiters = [];
    });
  });
  return {
    server,
    holdFor: (n) => (count = n),
    allClosed: () => (open === 0 ? Promise.resolve() : new Promise((resolve) => closedWaiters.push(resolve))),
  };
}

describe('closePooledParsers', () => {
  it("empties node:http's pool of the parsers a burst of connections left, and the server goes on answering", async () => {
    const pool = nodeParserPool();
    assert.notEqual(pool, null, 'Node 20 pools its HTTP parsers in _http_common');
    const { server, holdFor, allClosed } = serverHolding(20);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      await burst(server, 20);
      await allClosed();
      assert.ok(pool!.list.length >= 20, `20 closed connections leave 20 pooled parsers, found ${pool!.list.length}`);
      const before = pool!.list.length;
      assert.equal(closePooledParsers(pool), before);
      assert.equal(pool!.list.length, 0);
      holdFor(3);
      await burst(server, 3);
    } finally {
      server.close();
    }
  });

  it('closes each parser once and passes over anything without close()', () => {
    const calls: number[] = [];
    const pool: ParserPool = { list: [{ close: () => calls.push(1) }, {}, { close: () => calls.push(2) }] };
    assert.equal(closePooledParsers(pool), 2);
    assert.deepEqual(calls.sort(), [1, 2]);
    assert.equal(pool.list.length, 0);
  });

  it('reports null, closing nothing, where the runtime has no pool', () => {
    assert.equal(closePooledParsers(null), null);
  });
});
