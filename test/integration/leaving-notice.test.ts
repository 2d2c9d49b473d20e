/**
 * The leaving notice (issue 11, item 7), between two real Hubs on loopback: a Hub stopped with
 * SIGTERM tells its peer in a signed request, and the peer stops placing work on it at once,
 * before any failed poll, then takes it back on its first good poll after it returns. A forged
 * notice (signed with another key), a bearer one and one with no credentials are refused, and
 * change nothing.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, sign } from 'node:crypto';
import { signRequest } from '../../src/peer-auth/signed-headers.js';
import { UNREACHABLE_AFTER_FAILURES } from '../../src/peers/health-poller.js';
import { LEAVING_PATH } from '../../src/peers/leaving-notice.js';
import { chat, getJson, header, LONG_TEST_TIMEOUT_MS, POOL_API, TEST_TIMEOUT_MS, usePool, waitConnected } from '../helpers/pool-fixture.js';
import { send } from './pairing-fixtures.js';

const B_ONLY = 'b-only:8b';
const POLL_SECONDS = 10;

describe('the leaving notice between two Hubs', () => {
  const pool = usePool<'a' | 'b'>({
    hubs: { a: { ollama: { models: ['a-only:1b'] } }, b: { ollama: { models: [B_ONLY] } } },
    pairs: [['a', 'b']],
    settings: { poolHealthPollSeconds: POLL_SECONDS },
  });

  const listed = async (): Promise<string[]> => ((await getJson(pool().a, '/v1/models')).json.data as { id: string }[]).map((m) => m.id);

  it('refuses a forged, a bearer and an unsigned notice, and nothing changes', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { a, b } = pool();
    await waitConnected(a, b);
    const aUuid = (await a.status()).localNode.identity!.nodeUuid!;
    const bUuid = (await b.status()).localNode.identity!.nodeUuid!;
    const forger = generateKeyPairSync('ed25519');
    const body = Buffer.from(JSON.stringify({ reason: 'shutdown' }));
    // Everything B would send, but signed with a key A never pinned.
    const forged = signRequest({
      sign: (data) => sign(null, data, forger.privateKey),
      senderUuid: bUuid,
      senderFqdn: b.name,
      recipientUuid: aUuid,
      method: 'POST',
      path: LEAVING_PATH,
      body,
      nowMs: Date.now(),
    });
    assert.equal((await send(a.url, 'POST', LEAVING_PATH, { headers: forged, body })).status, 401, 'forged signature');
    assert.equal(
      (await send(a.url, 'POST', LEAVING_PATH, { headers: { 'x-hub-pool-peer': b.name, authorization: 'Bearer not-a-token' }, body })).status,
      401,
      'bearer',
    );
    assert.equal((await send(a.url, 'POST', LEAVING_PATH, { body })).status, 401, 'no credentials');

    const seen = await a.peer(b);
    assert.equal(seen?.status, 'connected');
    assert.equal(seen?.leftAt, null);
    assert.ok(seen?.backends !== null);
    assert.ok((await listed()).includes(B_ONLY), "B's models are still offered");
    assert.doesNotMatch(a.log(), /is shutting down: no work goes to it/);
  });

  it(
    'a Hub that stops tells its peer, which stops placing work on it before any failed poll and takes it back on its first good poll',
    { timeout: LONG_TEST_TIMEOUT_MS },
    async () => {
      const { a, b } = pool();
      await waitConnected(a, b);
      const served = await chat(a, B_ONLY);
      assert.equal(header(served, 'x-hub-pool-served-by'), b.name);

      await b.stop('SIGTERM');
      assert.match(b.log(), /leaving notice: 1 peer\(s\) told/);

      const gone = await a.peer(b);
      assert.equal(gone?.status, 'unreachable');
      assert.ok(gone?.leftAt, JSON.stringify(gone));
      assert.ok((gone?.consecutiveFailures ?? 0) < UNREACHABLE_AFTER_FAILURES, `marked before three failed polls: ${JSON.stringify(gone)}`);
      assert.equal(gone?.backends, null);
      assert.ok(!(await listed()).includes(B_ONLY), "B's models leave the listing at once");
      assert.equal((await chat(a, B_ONLY)).status, 502, 'no candidate holds the model while B is away');
      const status = await a.api<{ peers: { nodeFqdn: string; leftAt: string | null }[] }>('GET', `${POOL_API}/status`);
      assert.ok(status.json.peers.find((p) => p.nodeFqdn === b.name)?.leftAt);

      await b.restart();
      const back = await waitConnected(a, b, (POLL_SECONDS + 5) * 1000);
      assert.equal(back.leftAt, null);
      const again = await chat(a, B_ONLY);
      assert.equal(again.status, 200, again.text);
      assert.equal(header(again, 'x-hub-pool-served-by'), b.name);
    },
  );
});
