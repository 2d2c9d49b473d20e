/**
 * Pairing and peer forwards under attack, on real Hub processes (issue 9, defects 11, 14, 17):
 * a caller who squats another Hub's name, one who fills the pending list, one who adds
 * X-Forwarded-For to step around the PIN limiter, and a paired peer that reuses this Hub's
 * request ids to overwrite its routing log.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { request } from 'undici';
import { MAX_PENDING_INBOUND } from '../../src/pairing/pairing-service.js';
import type { RoutingLogPage } from '../../src/routing-log/entry.js';
import { startSimEngine, type SimEngine } from '../../src/sim/engine.js';
import {
  FakePeer,
  POOL,
  fqdn,
  mintPin,
  pairFakeWithPin,
  peerNamed,
  reservePorts,
  send,
  startNamedHub,
  type Answer,
  type HubProcess,
} from './pairing-fixtures.js';

const MODEL = 'qwen3:8b';
const CHAT = { model: MODEL, messages: [{ role: 'user', content: 'hi' }], stream: false };

/** A pairing request as `fake` would send it, from wherever and with whatever headers the test says. */
function pairRequest(
  hub: HubProcess,
  fake: FakePeer,
  opts: { pin?: string; name?: string; headers?: Record<string, string>; localAddress?: string } = {},
): Promise<Answer> {
  const body = {
    fromNodeFqdn: opts.name ?? fake.name,
    token: randomBytes(32).toString('base64url'),
    ...(opts.pin === undefined ? {} : { pin: opts.pin, nodeUuid: fake.uuid, publicKey: fake.publicKey }),
  };
  return send(hub.url, 'POST', `${POOL}/pair/request`, {
    body,
    ...(opts.headers ? { headers: opts.headers } : {}),
    ...(opts.localAddress ? { localAddress: opts.localAddress } : {}),
  });
}

const wrongPin = (right: string) => (right === '000000' ? '000001' : '000000');

describe('pairing and peer forwards under attack', () => {
  let engine: SimEngine;
  let hub: HubProcess;
  const real = new FakePeer('real-requester');
  const second = new FakePeer('second-requester');
  const forwarder = new FakePeer('id-reuser');

  before(async () => {
    engine = await startSimEngine({ dialect: 'ollama', models: [MODEL], timeScale: 0.01 });
    await Promise.all([real, second, forwarder].map((f) => f.start()));
    const ports = await reservePorts(['hub']);
    hub = await startNamedHub({ name: fqdn('attacked'), port: ports.hub, origins: { [forwarder.name]: forwarder.origin }, env: { OLLAMA_URL: engine.url } });
  });
  after(async () => {
    await hub?.stop();
    await Promise.all([engine?.close(), real.close(), second.close(), forwarder.close()]);
  });

  it('defect 11: a PIN request replaces a PIN-less request squatting its name, and is answered with the identity', async () => {
    const squat = await pairRequest(hub, real);
    assert.equal(squat.status, 200, squat.text);
    const { pin, fingerprint } = await mintPin(hub);
    const asked = await pairRequest(hub, real, { pin });
    assert.equal(asked.status, 200, asked.text);
    assert.equal(asked.json.nodeUuid !== undefined && typeof asked.json.publicKey === 'string', true, `the requester learns it was verified: ${asked.text}`);
    const row = await peerNamed(hub, real.name);
    assert.ok(row && row.status === 'pending' && row.direction === 'inbound');
    assert.notEqual(row.fingerprint, null, "the row now carries the requester's key");
    assert.notEqual(row.fingerprint, fingerprint);
  });

  it('defect 11: a PIN request the Hub cannot take is told why, and its PIN is not spent', async () => {
    const { pin } = await mintPin(hub);
    const again = await pairRequest(hub, real, { pin });
    assert.equal(again.status, 409, again.text);
    assert.match(again.json.error.message, new RegExp(`already holds a row for ${real.name.replace(/\./g, '\\.')}`));
    const other = await pairRequest(hub, second, { pin });
    assert.equal(other.status, 200, `the same PIN still works: ${other.text}`);
    assert.equal(typeof other.json.nodeUuid, 'string');
  });

  it("defect 14: a peer reusing this Hub's request id gets its own row; the Hub's row is untouched", async () => {
    const { hubUuid } = await pairFakeWithPin(hub, forwarder);
    const app = await request(`${hub.pool}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(CHAT),
    });
    await app.body.text();
    assert.equal(app.statusCode, 200);
    const id = String(app.headers['x-hub-pool-request-id']);
    const ownRow = (await hub.api<RoutingLogPage>('GET', `${POOL}/routing-log`)).json.entries.find((e) => e.id === id);
    assert.ok(ownRow && ownRow.direction === 'outbound' && ownRow.outcome === 'served');

    const path = `${POOL}/local/v1/chat/completions`;
    const forwarded = await send(hub.url, 'POST', path, {
      headers: { ...forwarder.sign({ recipient: hubUuid, method: 'POST', path, body: CHAT }), 'x-hub-pool-request-id': id },
      body: CHAT,
    });
    assert.equal(forwarded.status, 200, forwarded.text);

    const rows = (await hub.api<RoutingLogPage>('GET', `${POOL}/routing-log`)).json.entries;
    assert.deepEqual(
      rows.find((e) => e.id === id),
      ownRow,
      "this Hub's own row is exactly as it was",
    );
    const theirs = rows.filter((e) => e.direction === 'inbound' && e.node === forwarder.name);
    assert.equal(theirs.length, 1, JSON.stringify(rows.map((r) => [r.id, r.direction, r.node])));
    assert.notEqual(theirs[0]!.id, id);
    assert.equal(String(forwarded.headers['x-hub-pool-request-id']), theirs[0]!.id);
  });

  it(`defect 17: ${MAX_PENDING_INBOUND} PIN-less requests cannot stop a PIN pairing`, async () => {
    const squatters = Array.from({ length: MAX_PENDING_INBOUND }, (_, i) => new FakePeer(`squatter-${i}`));
    const waiting = (
      await hub.api<{ peers: Array<{ status: string; direction: string; fingerprint: string | null }> }>('GET', `${POOL}/peers`)
    ).json.peers.filter((p) => p.status === 'pending' && p.direction === 'inbound' && p.fingerprint === null).length;
    for (const s of squatters.slice(waiting)) assert.equal((await pairRequest(hub, s)).status, 200);
    const full = await pairRequest(hub, new FakePeer('one-too-many'));
    assert.equal(full.status, 429, full.text);
    assert.equal(full.json.error.code, 'HUB_ERR_PAIR_PENDING_FULL');
    assert.match(full.json.error.message, /with a PIN/);
    const { pin } = await mintPin(hub);
    const withPin = await pairRequest(hub, new FakePeer('pin-after-flood'), { pin });
    assert.equal(withPin.status, 200, withPin.text);
    assert.equal(typeof withPin.json.nodeUuid, 'string');
  });
});

describe('defect 17: the PIN limiter keys on the real caller, whatever X-Forwarded-For says', () => {
  const PROXY = '127.0.0.60';
  const DIRECT = '127.0.0.61';
  let hub: HubProcess;
  before(async () => {
    const ports = await reservePorts(['hub']);
    hub = await startNamedHub({ name: fqdn('limited'), port: ports.hub, origins: {}, env: { HUB_TRUST_PROXY: PROXY } });
  });
  after(async () => {
    await hub?.stop();
  });

  let n = 0;
  const fresh = () => new FakePeer(`guess-${++n}`);

  it('blocks a direct caller after two wrong PINs, though it adds a new X-Forwarded-For and a new name each time', async () => {
    const { pin } = await mintPin(hub);
    for (let i = 0; i < 2; i++) {
      const wrong = await pairRequest(hub, fresh(), { pin: wrongPin(pin), localAddress: DIRECT, headers: { 'x-forwarded-for': `198.51.100.${i + 1}` } });
      assert.equal(wrong.status, 401, wrong.text);
    }
    const third = await pairRequest(hub, fresh(), { pin, localAddress: DIRECT, headers: { 'x-forwarded-for': '198.51.100.99' } });
    assert.equal(third.status, 429, third.text);
    assert.equal(third.json.error.code, 'HUB_ERR_PAIR_RATE_LIMITED');
  });

  it('behind a trusted proxy, keys on the client the proxy names: one guessing client does not lock out the next', async () => {
    const { pin } = await mintPin(hub);
    for (let i = 0; i < 2; i++) {
      const wrong = await pairRequest(hub, fresh(), { pin: wrongPin(pin), localAddress: PROXY, headers: { 'x-forwarded-for': '203.0.113.10' } });
      assert.equal(wrong.status, 401, wrong.text);
    }
    const guesser = await pairRequest(hub, fresh(), { pin, localAddress: PROXY, headers: { 'x-forwarded-for': '203.0.113.10' } });
    assert.equal(guesser.status, 429, guesser.text);
    const neighbour = await pairRequest(hub, fresh(), { pin, localAddress: PROXY, headers: { 'x-forwarded-for': '203.0.113.11' } });
    assert.equal(neighbour.status, 200, neighbour.text);
  });
});

describe('the PIN limiter behind a tunnel on this machine (spec, "What a source means")', () => {
  // cloudflared on the same machine hands the Hub every caller from loopback, with cf-ray.
  const TUNNEL = '127.0.0.70';
  let hub: HubProcess;
  before(async () => {
    const ports = await reservePorts(['hub']);
    hub = await startNamedHub({ name: fqdn('tunnelled'), port: ports.hub, origins: {} });
  });
  after(async () => {
    await hub?.stop();
  });

  let n = 0;
  const fresh = () => new FakePeer(`tunnel-caller-${++n}`);

  it("two strangers' wrong PINs through the tunnel do not back off the operator's requester behind it", async () => {
    const { pin } = await mintPin(hub);
    for (const ray of ['8a1b2c3d4e5f-AMS', '8a1b2c3d4e60-AMS']) {
      const wrong = await pairRequest(hub, fresh(), {
        pin: wrongPin(pin),
        localAddress: TUNNEL,
        headers: { 'cf-ray': ray, 'cf-connecting-ip': '203.0.113.9' },
      });
      assert.equal(wrong.status, 401, wrong.text);
    }
    const right = await pairRequest(hub, fresh(), { pin, localAddress: TUNNEL, headers: { 'cf-ray': 'ffff-LHR', 'cf-connecting-ip': '198.51.100.7' } });
    assert.equal(right.status, 200, right.text);
  });

  it('still keys on the address of a loopback caller that shows no tunnel header', async () => {
    const { pin } = await mintPin(hub);
    for (let i = 0; i < 2; i++) assert.equal((await pairRequest(hub, fresh(), { pin: wrongPin(pin), localAddress: TUNNEL })).status, 401);
    const third = await pairRequest(hub, fresh(), { pin, localAddress: TUNNEL });
    assert.equal(third.status, 429, third.text);
  });
});
