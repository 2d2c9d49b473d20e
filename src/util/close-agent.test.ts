/**
 * Shutdown's last step for the Hub's outgoing calls. It used to close the agent and destroy it
 * after the grace, but close() had already dropped the agent's connection pools, so the destroy
 * cut nothing: a call to a hung peer ran on, and the count logged beside "calls ... were cut" was
 * one per agent with a call out, however many calls it had.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from './undici-lean.js';
import { callsOut, closeAgent } from './close-agent.js';

/** A server that holds every request until the test answers it. */
async function holdingServer() {
  const held: ServerResponse[] = [];
  const server = createServer((_req, res) => {
    held.push(res);
    server.emit('held');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  /** Resolves once `n` requests in all have reached the server. */
  const reached = async (n: number): Promise<void> => {
    while (held.length < n) await once(server, 'held');
  };
  return { server, held, origin, reached };
}

/** A call through the agent, settled as what became of it. */
function call(agent: Agent, origin: string): { outcome: string | null; settled: Promise<string> } {
  const c: { outcome: string | null; settled: Promise<string> } = { outcome: null, settled: Promise.resolve('') };
  c.settled = agent.request({ origin, path: '/', method: 'GET' }).then(
    async (r) => (c.outcome = `answered ${r.statusCode}: ${await r.body.text()}`),
    (err: { code?: string }) => (c.outcome = `failed ${err.code}`),
  );
  return c;
}

describe('closeAgent', () => {
  const servers: ReturnType<typeof createServer>[] = [];
  after(() => {
    for (const s of servers) s.closeAllConnections();
    for (const s of servers) s.close();
  });

  it('cuts the calls still out when the grace ends, counts each one, and lets their handlers run first', async () => {
    const { server, origin, reached } = await holdingServer();
    servers.push(server);
    const agent = new Agent();
    const calls = [call(agent, origin), call(agent, origin)];
    await reached(2);
    assert.equal(callsOut(agent), 2);

    const cut = await closeAgent(agent, 0);

    assert.equal(cut, 2, 'two calls were cut, on one agent');
    assert.deepEqual(
      calls.map((c) => c.outcome),
      ['failed UND_ERR_DESTROYED', 'failed UND_ERR_DESTROYED'],
      'each call saw the cut before closeAgent returned',
    );
  });

  it('waits through the grace for a call that finishes in it, and cuts nothing', async () => {
    const { server, held, origin, reached } = await holdingServer();
    servers.push(server);
    const agent = new Agent();
    const answered = call(agent, origin);
    await reached(1);

    // A grace far longer than the test: closing ends because the call finished, not because time ran out.
    const closing = closeAgent(agent, 60_000);
    held[0]!.end('done');

    assert.equal(await closing, 0);
    assert.equal(await answered.settled, 'answered 200: done');
  });

  it('cuts nothing on an agent with no call out', async () => {
    assert.equal(await closeAgent(new Agent(), 0), 0);
  });
});
