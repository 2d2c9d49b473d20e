/**
 * Attacks on signed peer requests, against real Hub processes on loopback
 * (docs/peer-protocol.md, "Signed requests" and "Upgrade and grace"). Each test first shows the
 * genuine request working, then the attack failing, so it fails if the rule it guards is broken.
 *
 * Cast: hub-a, hub-b and hub-c are real Hubs. hub-a dials the other two through recording
 * proxies, so the test holds real signed requests (and a real pairing token) exactly as A sent
 * them. Fake peers are the test process itself holding an Ed25519 key pinned on hub-b by a PIN
 * pairing, so they can sign, forge, replay and skew at will.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, generateKeyPairSync } from 'node:crypto';
import { startSimEngine, type SimEngine } from '../../src/sim/engine.js';
import type { RoutingLogPage } from '../../src/routing-log/entry.js';
import {
  FakePeer,
  POOL,
  RecordingProxy,
  eventually,
  fqdn,
  nodeUuidOf,
  pairFakeWithPin,
  pairFakeWithoutPin,
  pairHubs,
  peerNamed,
  reservePorts,
  send,
  startNamedHub,
  status,
  waitPaired,
  approve,
  mintPin,
  type HubProcess,
  type Recorded,
} from './pairing-fixtures.js';
import { startTogether } from '../helpers/start-together.js';

const MODEL = 'qwen3:8b';
const A = fqdn('hub-a');
const B = fqdn('hub-b');
const C = fqdn('hub-c');
const CAPS = `${POOL}/capabilities`;
const CHAT = `${POOL}/local/api/chat`;
const chatBody = { model: MODEL, messages: [{ role: 'user', content: 'hello' }], stream: false };

async function inboundRows(hub: HubProcess): Promise<number> {
  const { json } = await hub.api<RoutingLogPage>('GET', `${POOL}/routing-log?limit=1000`);
  return json.entries.filter((e) => e.direction === 'inbound').length;
}

describe('signed peer requests under attack', () => {
  let engine: SimEngine;
  let hubA: HubProcess;
  let hubB: HubProcess;
  let hubC: HubProcess;
  let proxyAB: RecordingProxy;
  let proxyAC: RecordingProxy;
  const fakes = {
    replay: new FakePeer('fake-replay'),
    skew: new FakePeer('fake-skew'),
    forge: new FakePeer('fake-forge'),
    bearer: new FakePeer('fake-bearer'),
    legacy: new FakePeer('fake-legacy', { legacy: true }),
    rename: new FakePeer('fake-rename'),
    pending: new FakePeer('fake-pending'),
    restart: new FakePeer('fake-restart'),
  };
  /** The token A issued C in its PIN-less pairing request, read off the wire by proxyAC. */
  let capturedTa = '';
  /** What A answered that token with while the pairing was still bearer-only (the positive control). */
  let capturedTaControl = 0;
  let startB: (dataDir?: string) => Promise<HubProcess>;

  before(async () => {
    engine = await startSimEngine({ dialect: 'ollama', models: [MODEL], timeScale: 0.01 });
    await Promise.all(Object.values(fakes).map((f) => f.start()));
    const ports = await reservePorts(['a', 'b', 'c']);
    proxyAB = await new RecordingProxy(`http://127.0.0.1:${ports.b}`).start();
    proxyAC = await new RecordingProxy(`http://127.0.0.1:${ports.c}`).start();
    const fakeOrigins = Object.fromEntries(Object.values(fakes).map((f) => [f.name, f.origin]));
    startB = (dataDir) =>
      startNamedHub({
        name: B,
        port: ports.b,
        origins: { [A]: `http://127.0.0.1:${ports.a}`, ...fakeOrigins },
        env: { OLLAMA_URL: engine.url },
        ...(dataDir ? { dataDir } : {}),
      });
    [hubA, hubB, hubC] = await startTogether([
      startNamedHub({ name: A, port: ports.a, origins: { [B]: proxyAB.origin, [C]: proxyAC.origin } }),
      startB(),
      startNamedHub({ name: C, port: ports.c, origins: { [A]: `http://127.0.0.1:${ports.a}` } }),
    ]);
    // A and B: a PIN pairing, signed both ways from the start.
    await pairHubs(hubA, A, hubB, B);
    // A and C: a pairing without a PIN (legacy bearer tokens, upgraded on confirm), through proxyAC.
    const asked = await hubA.api('POST', `${POOL}/peers/pair`, { nodeFqdn: C });
    assert.equal(asked.status, 200, JSON.stringify(asked.json));
    const request = proxyAC.records.find((r) => r.url === `${POOL}/pair/request`);
    assert.ok(request, 'proxyAC saw the pairing request');
    capturedTa = (JSON.parse(request.body.toString('utf8')) as { token: string }).token;
    // Still bearer-only: the guard admits the captured token as C (a 400 for the empty confirm body,
    // not a 401). Confirm is the route a pending request answers; /pair/upgrade refuses one.
    capturedTaControl = (
      await send(hubA.url, 'POST', `${POOL}/pair/confirm`, { headers: { 'x-hub-pool-peer': C, authorization: `Bearer ${capturedTa}` }, body: {} })
    ).status;
    assert.equal((await approve(hubC, A)).callback, 'confirmed');
    await waitPaired(hubA, C, hubC, A, 'signed');
    await eventually(async () => (await status(hubB)).localNode.backends.some((b) => b.healthy && b.models.includes(MODEL)), "B's engine healthy", 10_000);
  });

  after(async () => {
    await Promise.all([hubA, hubB, hubC].filter(Boolean).map((h) => h.stop()));
    await Promise.all([proxyAB?.close(), proxyAC?.close(), engine?.close(), ...Object.values(fakes).map((f) => f.close())]);
  });

  /** The newest signed GET /capabilities A sent B that B accepted. */
  function capturedCapabilities(): Recorded {
    const rec = proxyAB.records
      .filter((r) => r.method === 'GET' && r.url === CAPS && r.headers['x-hub-pool-signature'] !== undefined && r.status === 200)
      .at(-1);
    assert.ok(rec, 'proxyAB recorded a signed capabilities poll that B answered 200');
    return rec;
  }

  it('1. a replayed signed request is refused 401 and does nothing; the original succeeded', async () => {
    const fake = fakes.replay;
    const { hubUuid } = await pairFakeWithPin(hubB, fake);
    const enginesBefore = engine.state().requests;
    const rowsBefore = await inboundRows(hubB);

    const headers = fake.sign({ recipient: hubUuid, method: 'POST', path: CHAT, body: chatBody });
    const original = await send(hubB.url, 'POST', CHAT, { headers, body: chatBody });
    assert.equal(original.status, 200, original.text);
    assert.equal(original.json.message.role, 'assistant');
    assert.equal(engine.state().requests, enginesBefore + 1, 'the original reached the engine');
    assert.equal(await inboundRows(hubB), rowsBefore + 1, 'the original left an inbound routing-log row');

    const replay = await send(hubB.url, 'POST', CHAT, { headers, body: chatBody });
    assert.equal(replay.status, 401, replay.text);
    assert.equal(replay.json.error.code, 'HUB_ERR_PEER_UNAUTHORIZED');
    assert.equal(replay.headers['x-hub-pool-refusal'], undefined, 'a replay is not an identity mismatch');

    // The same nonce under a fresh timestamp and a fresh, valid signature is still a replay.
    const resigned = fake.sign({
      recipient: hubUuid,
      method: 'POST',
      path: CHAT,
      body: chatBody,
      nonce: headers['x-hub-pool-nonce']!,
      nowMs: Date.now() + 1_000,
    });
    assert.notEqual(resigned['x-hub-pool-signature'], headers['x-hub-pool-signature']);
    assert.equal((await send(hubB.url, 'POST', CHAT, { headers: resigned, body: chatBody })).status, 401);

    assert.equal(engine.state().requests, enginesBefore + 1, 'no replay reached the engine');
    assert.equal(await inboundRows(hubB), rowsBefore + 1, 'no replay left a routing-log row');

    // A real Hub's request, captured on the wire between A and B, replayed verbatim to B.
    const captured = capturedCapabilities();
    const replayedCapture = await send(hubB.url, 'GET', CAPS, { headers: RecordingProxy.credentials(captured) });
    assert.equal(replayedCapture.status, 401, replayedCapture.text);
  });

  it('2. a signed request re-addressed to another Hub is refused 401 with x-hub-pool-refusal: identity-mismatch', async () => {
    const captured = capturedCapabilities();
    const bUuid = await nodeUuidOf(hubB);
    const cUuid = await nodeUuidOf(hubC);
    assert.equal(captured.headers['x-hub-pool-recipient'], bUuid, 'A addressed the captured request to B');
    // C knows A: the pairing is signed, so a refusal can only be about the recipient.
    const aOnC = await peerNamed(hubC, A);
    assert.equal(aOnC?.status, 'connected');
    assert.equal(aOnC?.authMode, 'signed');

    const readdressed = await send(hubC.url, 'GET', CAPS, { headers: RecordingProxy.credentials(captured) });
    assert.equal(readdressed.status, 401, readdressed.text);
    assert.equal(readdressed.headers['x-hub-pool-refusal'], 'identity-mismatch');
    assert.ok(!readdressed.text.includes(cUuid) && !JSON.stringify(readdressed.headers).includes(cUuid), "the refusal does not disclose C's UUID");

    // Pointing the recipient header at C breaks the signature, which covers it: a plain 401.
    const rewritten = await send(hubC.url, 'GET', CAPS, { headers: { ...RecordingProxy.credentials(captured), 'x-hub-pool-recipient': cUuid } });
    assert.equal(rewritten.status, 401, rewritten.text);
    assert.equal(rewritten.headers['x-hub-pool-refusal'], undefined);
    assert.equal((await peerNamed(hubC, A))?.status, 'connected', 'C keeps its pairing with A');
  });

  it('3. a request outside the ±300 s skew window is refused; 299 s either way is accepted', async () => {
    const fake = fakes.skew;
    const { hubUuid } = await pairFakeWithPin(hubB, fake);
    const at = async (offsetMs: number) => (await fake.signed(hubB, { recipient: hubUuid, method: 'GET', path: CAPS, nowMs: Date.now() + offsetMs })).status;
    assert.equal(await at(-301_000), 401, '301 s old');
    assert.equal(await at(301_000), 401, '301 s ahead');
    assert.equal(await at(-299_000), 200, '299 s old');
    assert.equal(await at(299_000), 200, '299 s ahead');
    assert.equal(await at(0), 200, 'now');
  });

  it('4. a forged signature is refused and does not burn the nonce', async () => {
    const fake = fakes.forge;
    const { hubUuid } = await pairFakeWithPin(hubB, fake);
    const otherKey = generateKeyPairSync('ed25519').privateKey;
    const nonce = randomBytes(16).toString('base64url');

    const forged = await fake.signed(hubB, { recipient: hubUuid, method: 'GET', path: CAPS, nonce, key: otherKey });
    assert.equal(forged.status, 401, forged.text);
    assert.equal(forged.headers['x-hub-pool-refusal'], undefined);

    // A forged control message changes nothing: the row survives a forged unpair.
    const unpairNonce = randomBytes(16).toString('base64url');
    const forgedUnpair = await fake.signed(hubB, {
      recipient: hubUuid,
      method: 'POST',
      path: `${POOL}/pair/unpair`,
      body: {},
      nonce: unpairNonce,
      key: otherKey,
    });
    assert.equal(forgedUnpair.status, 401);
    // A genuine signature lifted onto another route, or onto another body, is refused the same way.
    const liftedHeaders = fake.sign({ recipient: hubUuid, method: 'GET', path: CAPS });
    assert.equal(
      (await send(hubB.url, 'POST', `${POOL}/pair/unpair`, { headers: liftedHeaders, body: {} })).status,
      401,
      'signature for GET /capabilities used on POST /pair/unpair',
    );
    const bodyHeaders = fake.sign({ recipient: hubUuid, method: 'POST', path: `${POOL}/pair/unpair`, body: { reason: 'signed' } });
    assert.equal(
      (await send(hubB.url, 'POST', `${POOL}/pair/unpair`, { headers: bodyHeaders, body: { reason: 'swapped' } })).status,
      401,
      'a /pair/* body is covered',
    );
    assert.equal((await peerNamed(hubB, fake.name))?.status, 'connected', 'no forged or lifted unpair removed the row');

    // The genuine requests with the nonces the forgeries used still work.
    const genuine = await fake.signed(hubB, { recipient: hubUuid, method: 'GET', path: CAPS, nonce });
    assert.equal(genuine.status, 200, genuine.text);
    assert.equal((await fake.signed(hubB, { recipient: hubUuid, method: 'GET', path: CAPS, nonce: unpairNonce })).status, 200);
    // ...and having been used for real, that nonce is now spent.
    assert.equal((await fake.signed(hubB, { recipient: hubUuid, method: 'GET', path: CAPS, nonce })).status, 401);
  });

  it('5a. a bearer token is refused once its peer has been seen signing', async () => {
    const fake = fakes.bearer;
    const { hubUuid, issuedToken } = await pairFakeWithPin(hubB, fake);
    const before = await fake.bearer(hubB, issuedToken, 'GET', CAPS);
    assert.equal(before.status, 200, `the issued token is genuine: ${before.text}`);
    assert.equal((await fake.signed(hubB, { recipient: hubUuid, method: 'GET', path: CAPS })).status, 200);
    const afterSigning = await fake.bearer(hubB, issuedToken, 'GET', CAPS);
    assert.equal(afterSigning.status, 401, afterSigning.text);
    assert.equal((await fake.bearer(hubB, issuedToken, 'POST', `${POOL}/pair/unpair`, {})).status, 401);
    assert.equal((await peerNamed(hubB, fake.name))?.authMode, 'signed');
  });

  it('5b. a pairing token captured on the wire stops working once the real peer signs', async () => {
    assert.match(capturedTa, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(capturedTaControl, 400, 'while the pairing was bearer-only, A admitted the captured token as C');
    const upgrade = await send(hubA.url, 'POST', `${POOL}/pair/upgrade`, {
      headers: { 'x-hub-pool-peer': C, authorization: `Bearer ${capturedTa}` },
      body: {},
    });
    assert.equal(upgrade.status, 401, upgrade.text);
    const caps = await send(hubA.url, 'GET', CAPS, { headers: { 'x-hub-pool-peer': C, authorization: `Bearer ${capturedTa}` } });
    assert.equal(caps.status, 401, caps.text);
    const unpair = await send(hubA.url, 'POST', `${POOL}/pair/unpair`, { headers: { 'x-hub-pool-peer': C, authorization: `Bearer ${capturedTa}` }, body: {} });
    assert.equal(unpair.status, 401);
    assert.equal((await peerNamed(hubA, C))?.status, 'connected', 'the captured token could not unpair C from A');
  });

  it('5c. with poolRequireSignedPeers on, a bearer token is refused outright', async () => {
    const fake = fakes.legacy;
    const { issuedToken } = await pairFakeWithoutPin(hubB, fake);
    const confirm = fake.received.find((r) => r.url === `${POOL}/pair/confirm`);
    assert.equal(confirm?.headers.authorization, `Bearer ${fake.token}`, "B confirmed with the legacy peer's own token");
    assert.equal((await fake.bearer(hubB, issuedToken, 'GET', CAPS)).status, 200, 'a legacy peer is admitted by bearer');
    try {
      assert.equal((await hubB.api('PATCH', `${POOL}/settings`, { poolRequireSignedPeers: true })).status, 200);
      const refused = await fake.bearer(hubB, issuedToken, 'GET', CAPS);
      assert.equal(refused.status, 401, refused.text);
    } finally {
      assert.equal((await hubB.api('PATCH', `${POOL}/settings`, { poolRequireSignedPeers: false })).status, 200);
    }
    assert.equal((await fake.bearer(hubB, issuedToken, 'GET', CAPS)).status, 200, 'the refusal was the setting, nothing else');
  });

  it('a PIN-verified request that the operator has not approved gets no work and no capabilities', async () => {
    const fake = fakes.pending;
    const { pin } = await mintPin(hubB);
    const asked = await fake.requestPairing(hubB, pin);
    assert.equal(asked.status, 200, asked.text);
    const hubUuid = asked.json.nodeUuid as string;
    assert.equal((await peerNamed(hubB, fake.name))?.status, 'pending');
    const served = engine.state().requests;
    const work = await fake.signed(hubB, { recipient: hubUuid, method: 'POST', path: CHAT, body: chatBody });
    assert.equal(work.status, 401, work.text);
    assert.equal(engine.state().requests, served, 'nothing reached the engine');
    assert.equal((await fake.signed(hubB, { recipient: hubUuid, method: 'GET', path: CAPS })).status, 401);
    // Nor can it approve itself: a confirmation from the requester is refused.
    const selfConfirm = await fake.signed(hubB, {
      recipient: hubUuid,
      method: 'POST',
      path: `${POOL}/pair/confirm`,
      body: { token: fake.token, nodeUuid: fake.uuid, publicKey: fake.publicKey },
    });
    assert.equal(selfConfirm.status, 409, selfConfirm.text);
    assert.equal((await peerNamed(hubB, fake.name))?.status, 'pending');
  });

  it("a signed peer cannot rename itself off the tailnet, or to this Hub's own name", async () => {
    const fake = fakes.rename;
    const { hubUuid } = await pairFakeWithPin(hubB, fake);
    const refusedRenames = () =>
      hubB
        .log()
        .split('\n')
        .filter((l) => l.includes('rename not applied')).length;
    for (const name of ['mallory.evil.example', B]) {
      const before = refusedRenames();
      const res = await fake.signed(hubB, { recipient: hubUuid, method: 'GET', path: CAPS, senderFqdn: name });
      assert.equal(res.status, 200, 'the signature over the claimed name is valid');
      // The Hub decides on the claimed name as it admits the request, and says so: wait for that, not for a fixed time.
      await eventually(() => refusedRenames() > before, `B to refuse the rename to ${name}`);
      const names = (await status(hubB)).peers.map((p) => p.nodeFqdn);
      assert.ok(!names.includes(name), `B renamed its peer row to ${name}, which it would then dial`);
      assert.ok(names.includes(fake.name));
    }
    // A move inside the tailnet is still followed (the rule above is not just "renames are off").
    const moved = fqdn('fake-renamed');
    assert.equal((await fake.signed(hubB, { recipient: hubUuid, method: 'GET', path: CAPS, senderFqdn: moved })).status, 200);
    await eventually(async () => (await peerNamed(hubB, moved)) !== null, 'the in-tailnet rename', 5_000);
  });

  it("14. unpairing from one side sends the authenticated notification: the other side's row is gone", async () => {
    const bOnA = await peerNamed(hubA, B);
    assert.ok(bOnA);
    assert.ok(await peerNamed(hubB, A), 'B holds a row for A before');
    const res = await hubA.api<{ unpaired: string; notified: boolean }>('DELETE', `${POOL}/peers/${bOnA.id}`);
    assert.equal(res.status, 200, JSON.stringify(res.json));
    assert.deepEqual(res.json, { unpaired: B, notified: true });
    assert.equal(await peerNamed(hubA, B), null);
    assert.equal(await peerNamed(hubB, A), null, "B's row for A is gone");
    const note = proxyAB.records.find((r) => r.method === 'POST' && r.url === `${POOL}/pair/unpair`);
    assert.ok(note, 'the notification went over the wire');
    assert.ok(note.headers['x-hub-pool-signature'], 'signed');
    assert.equal(note.headers.authorization, undefined, 'no bearer token on the wire');
    // The notification cannot be replayed against anyone else's pairing: C still holds A.
    assert.equal((await send(hubC.url, 'POST', `${POOL}/pair/unpair`, { headers: RecordingProxy.credentials(note), body: note.body })).status, 401);
    assert.equal((await peerNamed(hubC, A))?.status, 'connected');
  });

  it('a signed request captured before the receiver restarts is refused after it (signatures older than the process are refused)', async () => {
    const fake = fakes.restart;
    const { hubUuid } = await pairFakeWithPin(hubB, fake);
    const headers = fake.sign({ recipient: hubUuid, method: 'POST', path: CHAT, body: chatBody });
    assert.equal((await send(hubB.url, 'POST', CHAT, { headers, body: chatBody })).status, 200);
    const dataDir = hubB.dataDir;
    await hubB.stop();
    hubB = await startB(dataDir);
    await eventually(async () => (await status(hubB)).localNode.backends.some((b) => b.healthy), "B's engine healthy again", 10_000);
    const served = engine.state().requests;
    const replay = await send(hubB.url, 'POST', CHAT, { headers, body: chatBody });
    assert.equal(replay.status, 401, `replayed after a restart: ${replay.status}`);
    assert.equal(engine.state().requests, served);
  });
});
