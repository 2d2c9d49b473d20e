import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { request } from 'undici';
import { checkingLookup, pinnedAgent, POOL_ADDRESS_REFUSED, privateOnlyAgent } from './pinned-dial.js';
import { checkPoolTarget, type Resolver } from './private-address.js';

describe('dialling only where the check said', () => {
  let server: Server;
  let port: number;
  let hits = 0;
  before(async () => {
    server = createServer((_req, res) => {
      hits += 1;
      res.end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('never connects to a name that resolves to loopback, and says why', async () => {
    const agent = privateOnlyAgent(async () => [{ address: '127.0.0.1', family: 4 }], 1_000);
    const before = hits;
    const err = await request(`http://evil.tail0.ts.net:${port}/`, { dispatcher: agent }).then(
      () => null,
      (e: unknown) => e as { code?: string; message?: string; cause?: { code?: string; message?: string } },
    );
    await agent.close();
    assert.notEqual(err, null);
    const cause = err!.code === POOL_ADDRESS_REFUSED ? err! : err!.cause!;
    assert.equal(cause.code, POOL_ADDRESS_REFUSED);
    assert.match(cause.message ?? '', /evil\.tail0\.ts\.net resolves to 127\.0\.0\.1, and is loopback/);
    assert.equal(hits, before, 'the listener saw no request');
  });

  it('checks every new connection, so a name rebound to loopback after a good answer is refused', async () => {
    const answers = ['192.168.1.9', '127.0.0.1'];
    let asked = 0;
    const rebinding: Resolver = async () => [{ address: answers[Math.min(asked++, 1)]!, family: 4 }];
    const lookup = checkingLookup(rebinding);
    const first = await new Promise<string>((resolve) => lookup('rebind.lan', {}, (e, a) => resolve(e ? `error ${e.message}` : String(a))));
    const second = await new Promise<string>((resolve) => lookup('rebind.lan', {}, (e, a) => resolve(e ? `error ${e.message}` : String(a))));
    assert.equal(first, '192.168.1.9');
    assert.match(second, /^error rebind\.lan resolves to 127\.0\.0\.1/);
  });

  it('answers a lookup that asks for all addresses with the checked list', async () => {
    const lookup = checkingLookup(async () => [
      { address: '10.0.0.2', family: 4 },
      { address: 'fd12::2', family: 6 },
    ]);
    const all = await new Promise<unknown>((resolve) => lookup('two.lan', { all: true }, (_e, a) => resolve(a)));
    assert.deepEqual(all, [
      { address: '10.0.0.2', family: 4 },
      { address: 'fd12::2', family: 6 },
    ]);
  });

  it('pins a connection to the checked address: the name is not resolved again at connect', async () => {
    // The check ran earlier and passed (a private answer); by connect time the name means
    // something else. A pinned agent dials what was checked, whatever the name says now.
    assert.equal((await checkPoolTarget('pinned.lan', async () => [{ address: '192.168.1.9', family: 4 }])).ok, true);
    // Loopback stands in for the checked address here: tests dial only loopback.
    const agent = pinnedAgent([{ address: '127.0.0.1', family: 4 }]);
    const before = hits;
    const res = await request(`http://no-such-name.invalid:${port}/`, { dispatcher: agent });
    await res.body.text();
    await agent.close();
    assert.equal(res.statusCode, 200);
    assert.equal(hits, before + 1);
  });
});
