/**
 * A Hub whose sealed identity key cannot be opened, e.g. its data survived but identity.secret did
 * not (docs/peer-protocol.md, "Identity"). The test stands in for that by overwriting the secret.
 * The Hub must stay up and keep serving its own engines, still verify signed peers (that needs
 * only their public keys), say what is wrong in status, refuse to mint a PIN it could not back,
 * and be recovered by a rotation.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startSimEngine, type SimEngine } from '../../src/sim/engine.js';
import {
  FakePeer,
  POOL,
  eventually,
  fqdn,
  isAlive,
  pairFakeWithPin,
  peerNamed,
  reservePorts,
  send,
  startNamedHub,
  status,
  type HubProcess,
} from './pairing-fixtures.js';

const MODEL = 'qwen3:8b';
const D = fqdn('hub-d');
const CAPS = `${POOL}/capabilities`;

describe("core-4's four-day 401 loop: a Hub whose sealed identity key cannot be opened", () => {
  let engine: SimEngine;
  let port: number;
  let hubD: HubProcess;
  const fake = new FakePeer('fake-verifier');
  let hubUuid: string;
  let oldFingerprint: string;
  let pinAnswer: { status: number; json: { error?: { code?: string; message?: string } } };
  const startD = (dataDir?: string) =>
    startNamedHub({ name: D, port, origins: { [fake.name]: fake.origin }, env: { OLLAMA_URL: engine.url }, ...(dataDir ? { dataDir } : {}) });

  before(async () => {
    engine = await startSimEngine({ dialect: 'ollama', models: [MODEL], timeScale: 0.01 });
    await fake.start();
    ({ d: port } = await reservePorts(['d']));
    hubD = await startD();
    ({ hubUuid } = await pairFakeWithPin(hubD, fake));
    await eventually(async () => (await peerNamed(hubD, fake.name))?.lastSeenAt, 'D to poll its peer', 5_000);
    oldFingerprint = (await status(hubD)).localNode.identity!.fingerprint!;

    const secretPath = join(hubD.dataDir, 'identity.secret');
    assert.equal(statSync(secretPath).mode & 0o777, 0o600, 'the secret file is private to its owner');
    await hubD.stop();
    writeFileSync(secretPath, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
    hubD = await startD(hubD.dataDir);
    await eventually(async () => (await status(hubD)).localNode.backends.some((b) => b.healthy), "D's engine healthy", 10_000);
  });
  after(async () => {
    await hubD?.stop();
    await Promise.all([engine?.close(), fake.close()]);
  });

  it('12a. status answers 200 naming the problem; the Hub still serves and still verifies its peers', async () => {
    // D has a peer, so its health poll touches the identity within a tick of starting.
    const identity = await eventually(
      async () => {
        const id = (await status(hubD)).localNode.identity;
        return id?.identityError ? id : null;
      },
      'identityError in status',
      5_000,
    );
    assert.match(identity.identityError!, /cannot be unsealed/);
    assert.equal(identity.nodeUuid, hubUuid, 'the UUID is still known (stored in the clear)');
    assert.equal(identity.fingerprint, oldFingerprint);

    const chat = await send(hubD.url, 'POST', `${POOL}/v1/chat/completions`, { body: { model: MODEL, messages: [{ role: 'user', content: 'hi' }] } });
    assert.equal(chat.status, 200, chat.text);
    assert.equal(chat.headers['x-hub-pool-served-by'], 'local');

    const verified = await fake.signed(hubD, { recipient: hubUuid, method: 'GET', path: CAPS });
    assert.equal(verified.status, 200, `a signed peer is still verified: ${verified.text}`);
    assert.equal(verified.json.nodeUuid, hubUuid);
    assert.ok(isAlive(hubD), 'no crash');
  });

  it('12b. minting a PIN answers 503 and the sentence names rotate-identity', async () => {
    pinAnswer = await hubD.api('POST', `${POOL}/pairing-pin`);
    assert.equal(pinAnswer.status, 503, JSON.stringify(pinAnswer.json));
    assert.equal(pinAnswer.json.error?.code, 'HUB_ERR_IDENTITY_UNAVAILABLE');
    assert.match(pinAnswer.json.error?.message ?? '', /rotate-identity/, `the operator is told what to run: ${pinAnswer.json.error?.message}`);
    assert.equal((await status(hubD)).pairingPin.active, false, 'no PIN was minted');
  });

  it('12c. POST /identity/rotate recovers: new fingerprint, same UUID, no error, and the unreachable peer is named', async () => {
    const rotated = await hubD.api<{ nodeUuid: string; fingerprint: string | null; identityError: string | null; unpaired: string[]; notReached: string[] }>(
      'POST',
      `${POOL}/identity/rotate`,
    );
    assert.equal(rotated.status, 200, JSON.stringify(rotated.json));
    assert.equal(rotated.json.identityError, null);
    assert.equal(rotated.json.nodeUuid, hubUuid, 'rotation keeps the UUID');
    assert.ok(rotated.json.fingerprint && rotated.json.fingerprint !== oldFingerprint, 'a new key');
    assert.deepEqual(rotated.json.unpaired, [fake.name]);
    assert.deepEqual(rotated.json.notReached, [fake.name], 'D could not sign the unpair with the key it cannot open');
    assert.equal(fake.received.filter((r) => r.url === `${POOL}/pair/unpair`).length, 0);

    const s = await status(hubD);
    assert.equal(s.localNode.identity?.identityError, null);
    assert.equal(s.localNode.identity?.fingerprint, rotated.json.fingerprint);
    assert.deepEqual(s.peers, []);
    const pin = await hubD.api<{ pin: string; fingerprint: string }>('POST', `${POOL}/pairing-pin`);
    assert.equal(pin.status, 200, JSON.stringify(pin.json));
    assert.equal(pin.json.fingerprint, rotated.json.fingerprint);
    // The old pairing is gone: the peer that held it is refused now.
    assert.equal((await fake.signed(hubD, { recipient: hubUuid, method: 'GET', path: CAPS })).status, 401);
    assert.ok(isAlive(hubD));
  });
});
