/**
 * Three Hubs on three hosts of their own (test/hosts/harness.ts): each in its own network
 * namespace and address, reached only at https://<name> with the run's test CA, names resolved
 * by the system resolver from a hosts file, no development dial map. Pairing, relaying, signing
 * and failover, over the same transport a tailnet gives them.
 *
 * Run with `npm run test:hosts` (root, Linux); not part of `npm test`.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync, sign } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { signRequest } from '../../src/peer-auth/signed-headers.js';
import { eventually } from '../helpers/hub-process.js';
import { HOSTS_START_TIMEOUT_MS, HOSTS_TEST_TIMEOUT_MS, POOL_API, header, pair, startHosts, type Host, type Hosts } from './harness.js';

/** Only on a's engine. */
const ALPHA = 'alpha:1b';
/** Only on b's engine. */
const BETA = 'beta:1b';
/** On b's and c's engines. */
const SHARED = 'shared:1b';
/** Only on d's engine. */
const DELTA = 'delta:1b';

describe('a pool of Hubs on separate hosts, at their https names', { timeout: HOSTS_START_TIMEOUT_MS + HOSTS_TEST_TIMEOUT_MS * 6 }, () => {
  let hosts: Hosts<'a' | 'b' | 'c' | 'd'>;

  before(
    async () => {
      hosts = await startHosts({
        hosts: {
          a: { models: [ALPHA] },
          b: { models: [BETA, SHARED] },
          c: { models: [SHARED] },
          // A fourth Hub that was never told to trust the run's CA.
          d: { models: [DELTA], env: { NODE_EXTRA_CA_CERTS: '' } },
        },
        // The shortest poll the settings allow, so a host that comes back is seen again soon.
        settings: { poolHealthPollSeconds: 10 },
      });
    },
    { timeout: HOSTS_START_TIMEOUT_MS },
  );
  after(() => hosts?.stop());

  it('gives each Hub its name from its own tailnet daemon, published at https://<name>, with no development map', async () => {
    for (const host of hosts.all) {
      const local = (await host.status()).localNode;
      assert.equal(local.nodeFqdn, host.name);
      assert.equal(local.tailnetSource, 'tailscale');
      assert.equal(local.peerOriginsMap.active, false, 'peers are dialled at https://<name>, not through HUB_POOL_PEER_ORIGINS');
      const published = host.tailscale.calls().find((argv) => argv[0] === 'serve' && argv.includes('--bg'));
      assert.ok(published, `${host.name} published itself with tailscale serve`);
    }
  });

  it('pairs the three Hubs, each request approved with a PIN by the operator of the receiving Hub', { timeout: HOSTS_TEST_TIMEOUT_MS }, async () => {
    const { a, b, c } = hosts;
    await pair(a, b);
    await pair(b, c);
    await pair(c, a);
    const fingerprint = async (h: Host) => (await h.status()).localNode.identity?.fingerprint;
    for (const [viewer, other] of [
      [a, b],
      [b, a],
      [b, c],
      [c, b],
      [c, a],
      [a, c],
    ] as const) {
      const seen = await viewer.peer(other);
      assert.ok(seen, `${viewer.name} has a row for ${other.name}`);
      assert.equal(seen.status, 'connected');
      assert.equal(seen.pinVerified, true);
      assert.equal(seen.fingerprint, await fingerprint(other), `${viewer.name} pinned ${other.name}'s own key`);
    }
  });

  it('verifies TLS for real: a Hub that does not trust the CA cannot pair at https://<name>', { timeout: HOSTS_TEST_TIMEOUT_MS }, async () => {
    const { a, d } = hosts;
    const minted = await a.api('POST', `${POOL_API}/pairing-pin`);
    assert.equal(minted.status, 200, minted.text);
    const asked = await d.api('POST', `${POOL_API}/peers/pair`, { nodeFqdn: a.name, pin: (minted.json as { pin: string }).pin });
    assert.notEqual(asked.status, 200, asked.text);
    assert.equal(asked.json?.error?.code, 'HUB_ERR_PEER_UNREACHABLE', asked.text);
    assert.match(
      asked.text,
      /TLS certificate not trusted \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\)/,
      'the TLS handshake refused a certificate from a CA it does not trust, and says so',
    );
    assert.equal(await a.peer(d), null, 'a never heard the request');
  });

  it("places a request on another host's engine and relays the answer, streamed or not", { timeout: HOSTS_TEST_TIMEOUT_MS }, async () => {
    const { a, b } = hosts;
    const before_ = await b.engineRequests(BETA);

    const whole = await a.chat(BETA);
    assert.equal(whole.status, 200, whole.text);
    assert.equal(header(whole, 'x-hub-pool-served-by'), b.name);
    assert.equal(whole.json.model, BETA);
    assert.ok(String(whole.json.choices[0].message.content).length > 0);

    const streamed = await a.chat(BETA, { stream: true });
    assert.equal(streamed.status, 200, streamed.text);
    assert.equal(header(streamed, 'x-hub-pool-served-by'), b.name);
    assert.match(streamed.text, /^data: /);
    assert.match(streamed.text, /data: \[DONE\]\n\n$/);

    assert.equal(await b.engineRequests(BETA), before_ + 2, "both reached b's engine");
    const row = await a.settledRow(String(header(whole, 'x-hub-pool-request-id')));
    assert.equal(row.outcome, 'served');
    assert.equal(row.node, b.name);
    const inbound = await eventually(
      async () => (await b.routingLog()).find((e) => e.id === row.id && e.direction === 'inbound' && e.outcome !== 'pending'),
      "b's inbound row for a's request",
    );
    assert.equal(inbound.node, a.name, 'b attributes the work to the peer it authenticated');
  });

  it('serves an app using the official openai client at https://<name>, streamed from another host', { timeout: HOSTS_TEST_TIMEOUT_MS }, async () => {
    const { a, b } = hosts;
    const stream = await a
      .openai()
      .chat.completions.create({ model: BETA, messages: [{ role: 'user', content: 'hello' }], stream: true })
      .withResponse();
    assert.equal(stream.response.headers.get('x-hub-pool-served-by'), b.name);
    let text = '';
    let finish: string | null = null;
    for await (const chunk of stream.data) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    assert.ok(text.length > 0);
    assert.equal(finish, 'stop');
  });

  it('signs every forward, and the receiving host verifies it and refuses one signed with another key', { timeout: HOSTS_TEST_TIMEOUT_MS }, async () => {
    const { a, b } = hosts;
    assert.equal((await b.peer(a))?.authMode, 'signed');
    assert.equal((await a.peer(b))?.authMode, 'signed');

    // With bearer tokens refused outright, work from a still gets through: it was signed.
    await b.patchSettings({ poolRequireSignedPeers: true });
    try {
      const signed = await a.chat(BETA);
      assert.equal(signed.status, 200, signed.text);
      assert.equal(header(signed, 'x-hub-pool-served-by'), b.name);

      // A request that names a and b correctly but is signed with a key that is not a's.
      const aId = (await a.status()).localNode.identity!;
      const bId = (await b.status()).localNode.identity!;
      const { privateKey } = generateKeyPairSync('ed25519');
      const path = `${POOL_API}/local/v1/chat/completions`;
      const body = Buffer.from(JSON.stringify({ model: BETA, messages: [{ role: 'user', content: 'forged' }] }));
      const forgedHeaders = signRequest({
        sign: (data) => sign(null, data, privateKey),
        senderUuid: aId.nodeUuid!,
        senderFqdn: a.name,
        recipientUuid: bId.nodeUuid!,
        method: 'POST',
        path,
        body,
        nowMs: Date.now(),
      });
      const engineBefore = await b.engineRequests(BETA);
      const forged = await b.fetch(path, { method: 'POST', headers: { 'content-type': 'application/json', ...forgedHeaders }, body: body.toString() });
      assert.equal(forged.status, 401, forged.text);
      assert.equal(await b.engineRequests(BETA), engineBefore, "the forged request never reached b's engine");
    } finally {
      await b.patchSettings({ poolRequireSignedPeers: false });
    }
  });

  it("fails over to another host when one host's link goes down, and takes it back once the link is up", { timeout: HOSTS_TEST_TIMEOUT_MS * 2 }, async () => {
    const { a, b, c } = hosts;
    const pin = await a.api('POST', `${POOL_API}/pins`, { scope: 'model', model: SHARED, target: b.name });
    assert.equal(pin.status, 200, pin.text);
    try {
      const first = await a.chat(SHARED);
      assert.equal(header(first, 'x-hub-pool-served-by'), b.name, 'the pin puts b first while its link is up');

      b.linkDown();
      const cut = await a.chat(SHARED);
      assert.equal(cut.status, 200, cut.text);
      assert.equal(header(cut, 'x-hub-pool-served-by'), c.name);
      const row = await a.settledRow(String(header(cut, 'x-hub-pool-request-id')));
      assert.deepEqual(row.failedOverFrom, [b.name], 'b was tried first and passed over');

      await a.waitForPeer(b, 'unreachable', (p) => p.status === 'unreachable', 120_000);
      const meanwhile = await a.chat(SHARED);
      assert.equal(meanwhile.status, 200, meanwhile.text);
      assert.equal(header(meanwhile, 'x-hub-pool-served-by'), c.name, 'an unreachable host is not tried');

      b.linkUp();
      await a.waitForPeer(b, 'connected again', (p) => p.status === 'connected', 120_000);
      const back = await a.chat(SHARED);
      assert.equal(back.status, 200, back.text);
      assert.equal(header(back, 'x-hub-pool-served-by'), b.name, 'b serves again with no operator action');
    } finally {
      b.linkUp();
      await a.api('DELETE', `${POOL_API}/pins?scope=model&model=${encodeURIComponent(SHARED)}`);
    }
  });
});
