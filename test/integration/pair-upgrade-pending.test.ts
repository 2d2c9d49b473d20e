/**
 * POST /pair/upgrade moves an approved pairing from bearer tokens onto pinned keys. A pairing
 * still pending on the Hub called has no approval to move: its keys are exchanged on
 * /pair/confirm. So the route answers a pending peer as /capabilities and /local/* do (401
 * HUB_ERR_PEER_UNAUTHORIZED) and pins nothing. It used to take the peer's claim on the pending
 * row, pinning a key and opening a grace window on a request that was never confirmed there.
 *
 * Set up as it happens: two real Hubs, hub-a asks hub-b without a PIN, hub-b approves, and the
 * approval's call back cannot reach hub-a (hub-b dials a refused port for it). hub-b then holds
 * the pairing as connected, and hub-a still waits with its request pending: half paired. The
 * test calls hub-a with hub-b's credential, the token hub-a issued in its request, read on its
 * way to hub-b by a recording proxy.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import type { HubProcess } from '../helpers/hub-process.js';
import { refusedUrl } from '../helpers/refused-port.js';
import { startTogether } from '../helpers/start-together.js';
import { approve, fqdn, nodeUuidOf, peerNamed, POOL, RecordingProxy, reservePorts, send, startNamedHub, type Answer } from './pairing-fixtures.js';

const A = fqdn('hub-a');
const B = fqdn('hub-b');

describe('POST /pair/upgrade from a peer whose pairing is still pending here', () => {
  let a: HubProcess;
  let b: HubProcess;
  let toB: RecordingProxy;
  /** hub-b's bearer credential towards hub-a. */
  let asB: (method: string, path: string, body?: unknown) => Promise<Answer>;

  before(async () => {
    const ports = await reservePorts(['a', 'b']);
    toB = await new RecordingProxy(`http://127.0.0.1:${ports.b}`).start();
    [a, b] = await startTogether([
      startNamedHub({ name: A, port: ports.a, origins: { [B]: toB.origin } }),
      startNamedHub({ name: B, port: ports.b, origins: { [A]: await refusedUrl() } }),
    ]);

    const asked = await a.api('POST', `${POOL}/peers/pair`, { nodeFqdn: B });
    assert.equal(asked.status, 200, JSON.stringify(asked.json));
    assert.equal((await approve(b, A)).callback, 'failed', "hub-b's call back to hub-a must fail: that is what leaves hub-a pending");
    assert.equal((await peerNamed(b, A))?.status, 'connected');
    assert.equal((await peerNamed(a, B))?.status, 'pending');

    const request = toB.records.find((r) => r.url === `${POOL}/pair/request`);
    assert.ok(request, "hub-a's pairing request passed the proxy");
    const token = (JSON.parse(request.body.toString('utf8')) as { token: string }).token;
    asB = (method, path, body) =>
      send(a.url, method, path, { headers: { 'x-hub-pool-peer': B, authorization: `Bearer ${token}` }, ...(body === undefined ? {} : { body }) });
  });
  after(async () => {
    await Promise.all([a?.stop('SIGKILL'), b?.stop('SIGKILL')]);
    await toB?.close();
  });

  it('is refused as /capabilities refuses it, and hub-a pins no key on its waiting request', async () => {
    // hub-b's own UUID, with a key of the test's: hub-b's public key is not published anywhere a test can read it.
    const claim = { nodeUuid: await nodeUuidOf(b), publicKey: generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }).x };
    const upgrade = await asB('POST', `${POOL}/pair/upgrade`, claim);
    assert.deepEqual(
      { status: upgrade.status, code: upgrade.json?.error?.code },
      { status: 401, code: 'HUB_ERR_PEER_UNAUTHORIZED' },
      `upgrade answered: ${upgrade.text}`,
    );
    const row = await peerNamed(a, B);
    assert.deepEqual(
      { status: row?.status, fingerprint: row?.fingerprint },
      { status: 'pending', fingerprint: null },
      'the request still waits, with no key pinned',
    );
    // The refused call is hub-b acting on its approval, so hub-a names the half pairing with its fix.
    assert.equal(row?.pairingProblem?.kind, 'half_paired_there');

    const capabilities = await asB('GET', `${POOL}/capabilities`);
    assert.deepEqual({ status: upgrade.status, code: upgrade.json?.error?.code }, { status: capabilities.status, code: capabilities.json?.error?.code });
  });
});
