/**
 * The kill switches on the serving side, as paired peers see them (docs/peer-protocol.md,
 * "Health poll"). Master switch off: this Hub is out of the pool, so /capabilities is a 503 and
 * its peers take it out of routing on the third failed poll. Inbound off, or one peer disabled:
 * the pairing stands, /capabilities is a 200 that offers no engines and says acceptingWork
 * false, and /local/* is a 503 (a 403 would tell the sender the pairing itself is gone).
 *
 * hub-b serves a simulated engine. fake-sender is a peer in the test process, pinned on hub-b by
 * a PIN pairing, so the test can sign requests to hub-b directly; hub-a is a real peer polling
 * hub-b every 10 s.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startSimEngine, type SimEngine } from '../../src/sim/engine.js';
import {
  FakePeer,
  POOL,
  eventually,
  fqdn,
  justPolled,
  pairFakeWithPin,
  pairHubs,
  peerNamed,
  reservePorts,
  send,
  startNamedHub,
  status,
  type Answer,
  type HubProcess,
} from './pairing-fixtures.js';
import { startTogether } from '../helpers/start-together.js';

const MODEL = 'qwen3:8b';
const A = fqdn('hub-a');
const B = fqdn('hub-b');
const CAPS = `${POOL}/capabilities`;
const CHAT = `${POOL}/local/api/chat`;
const chatBody = { model: MODEL, messages: [{ role: 'user', content: 'hello' }], stream: false };
const POLL_SECONDS = 10;
const ONE_POLL_MS = POLL_SECONDS * 1000 + 4_000;

describe('kill switches on the serving side', () => {
  let engine: SimEngine;
  let ports: { a: number; b: number };
  let hubA: HubProcess;
  let hubB: HubProcess;
  const fake = new FakePeer('fake-sender');
  let bUuid: string;
  const startB = (env: Record<string, string> = {}, dataDir?: string) =>
    startNamedHub({
      name: B,
      port: ports.b,
      origins: { [A]: `http://127.0.0.1:${ports.a}`, [fake.name]: fake.origin },
      env: { OLLAMA_URL: engine.url, ...env },
      ...(dataDir ? { dataDir } : {}),
    });

  const caps = (): Promise<Answer> => fake.signed(hubB, { recipient: bUuid, method: 'GET', path: CAPS });
  const local = (): Promise<Answer> => fake.signed(hubB, { recipient: bUuid, method: 'POST', path: CHAT, body: chatBody });
  /** A's view of B after A's next poll that reports `accepting`. */
  const aSeesAccepting = (accepting: boolean) =>
    eventually(
      async () => {
        const p = await peerNamed(hubA, B);
        return p?.acceptingWork === accepting ? p : null;
      },
      `A to see B with acceptingWork ${accepting}`,
      ONE_POLL_MS,
    );

  before(async () => {
    engine = await startSimEngine({ dialect: 'ollama', models: [MODEL], timeScale: 0.01 });
    await fake.start();
    ports = await reservePorts(['a', 'b']);
    [hubA, hubB] = await startTogether([startNamedHub({ name: A, port: ports.a, origins: { [B]: `http://127.0.0.1:${ports.b}` } }), startB()]);
    assert.equal((await hubA.api('PATCH', `${POOL}/settings`, { poolHealthPollSeconds: POLL_SECONDS })).status, 200);
    await eventually(async () => (await status(hubB)).localNode.backends.some((b) => b.healthy && b.models.includes(MODEL)), "B's engine healthy", 10_000);
    await pairHubs(hubA, A, hubB, B);
    ({ hubUuid: bUuid } = await pairFakeWithPin(hubB, fake));
    await aSeesAccepting(true);
  });
  after(async () => {
    await Promise.all([hubA, hubB].filter(Boolean).map((h) => h.stop()));
    await Promise.all([engine?.close(), fake.close()]);
  });

  it('13a. inbound off: /capabilities 200 with acceptingWork false and no engines, /local/* 503 (never 403)', async () => {
    const open = await caps();
    assert.equal(open.status, 200, open.text);
    assert.equal(open.json.acceptingWork, true);
    assert.ok(
      open.json.backends.some((b: { models: string[] }) => b.models.includes(MODEL)),
      'B offers its engine while inbound is on',
    );
    const served = engine.state().requests;
    assert.equal((await local()).status, 200);
    assert.equal(engine.state().requests, served + 1);
    try {
      assert.equal((await hubB.api('PATCH', `${POOL}/settings`, { poolInboundEnabled: false })).status, 200);
      const closed = await caps();
      assert.equal(closed.status, 200, closed.text);
      assert.equal(closed.json.acceptingWork, false);
      assert.deepEqual(closed.json.backends, []);
      assert.equal(typeof closed.json.inFlightRequests, 'number', 'the real load is still reported');
      const refused = await local();
      assert.equal(refused.status, 503, refused.text);
      assert.equal(engine.state().requests, served + 1, 'nothing reached the engine');
      const seen = await aSeesAccepting(false);
      assert.equal(seen.status, 'connected', 'A keeps the pairing');
      assert.equal(seen.probeFailure, null);
      assert.deepEqual(seen.backends, []);
    } finally {
      assert.equal((await hubB.api('PATCH', `${POOL}/settings`, { poolInboundEnabled: true })).status, 200);
    }
    assert.equal((await caps()).json.acceptingWork, true);
    await aSeesAccepting(true);
  });

  it('13b. a per-peer disable is the same answer, for that peer only', async () => {
    const aRow = await peerNamed(hubB, A);
    const fakeRow = await peerNamed(hubB, fake.name);
    assert.ok(aRow && fakeRow);
    try {
      // Disabling A on B: A sees it on its next poll and stays paired; the fake peer is untouched.
      assert.equal((await hubB.api('POST', `${POOL}/peers/${aRow.id}/disable`)).status, 200);
      const untouched = await caps();
      assert.equal(untouched.json.acceptingWork, true, 'another peer still gets work');
      assert.equal((await local()).status, 200);
      const seen = await aSeesAccepting(false);
      assert.equal(seen.status, 'connected');
      assert.equal(seen.probeFailure, null);
      assert.deepEqual(seen.backends, []);
      assert.equal((await peerNamed(hubB, A))?.status, 'connected', 'a disabled peer keeps its pairing');

      // Disabling the fake peer: the same answers, signed and checked first hand.
      assert.equal((await hubB.api('POST', `${POOL}/peers/${fakeRow.id}/disable`)).status, 200);
      const closed = await caps();
      assert.equal(closed.status, 200);
      assert.equal(closed.json.acceptingWork, false);
      assert.deepEqual(closed.json.backends, []);
      const served = engine.state().requests;
      const refused = await local();
      assert.equal(refused.status, 503, refused.text);
      assert.equal(engine.state().requests, served);
    } finally {
      await hubB.api('POST', `${POOL}/peers/${fakeRow.id}/enable`);
      await hubB.api('POST', `${POOL}/peers/${aRow.id}/enable`);
    }
    const reopened = await caps();
    assert.equal(reopened.json.acceptingWork, true);
    assert.equal((await local()).status, 200);
  });

  it('13c. poolEnabled false is the master switch too: /capabilities and /local/* answer 503 until it is true again', async () => {
    try {
      assert.equal((await hubB.api('PATCH', `${POOL}/settings`, { poolEnabled: false })).status, 200);
      const refused = await caps();
      assert.equal(refused.status, 503, refused.text);
      assert.equal(refused.json.error.code, 'HUB_ERR_POOL_DISABLED');
      const served = engine.state().requests;
      assert.equal((await local()).status, 503);
      assert.equal(engine.state().requests, served);
    } finally {
      assert.equal((await hubB.api('PATCH', `${POOL}/settings`, { poolEnabled: true })).status, 200);
    }
    const open = await caps();
    assert.equal(open.status, 200, open.text);
    assert.equal(open.json.acceptingWork, true);
  });

  it('13d. HUB_POOL_USER_DISABLED: /capabilities and /local/* answer 503, and peers mark the Hub unreachable after three strikes', async () => {
    const dataDir = hubB.dataDir;
    // Restarted just after a poll, so every probe A makes from here on meets the 503.
    await justPolled(hubA, B, ONE_POLL_MS);
    // Killed, not stopped: a stopped Hub tells its peers it is leaving, and A would mark it
    // unreachable at once instead of counting the 503s this test is about.
    await hubB.stop('SIGKILL');
    hubB = await startB({ HUB_POOL_USER_DISABLED: 'true' }, dataDir);
    const refused = await caps();
    assert.equal(refused.status, 503, refused.text);
    assert.equal(refused.json.error.code, 'HUB_ERR_POOL_DISABLED');
    assert.equal(refused.headers['x-hub-pool-refusal'], undefined);
    const served = engine.state().requests;
    assert.equal((await local()).status, 503);
    assert.equal(engine.state().requests, served);
    const pairing = await send(hubB.url, 'POST', `${POOL}/pair/request`, { body: { fromNodeFqdn: fqdn('newcomer'), token: 'x'.repeat(43) } });
    assert.equal(pairing.status, 503, 'no pairing requests while out of the pool');

    const first = await eventually(
      async () => {
        const p = await peerNamed(hubA, B);
        return p?.probeFailure ? p : null;
      },
      "A's first probe of the switched-off B",
      ONE_POLL_MS,
    );
    assert.equal(first.probeFailure!.kind, 'unreachable', 'a 503 is unreachable, not a refusal');
    assert.equal(first.status, 'connected', 'one strike does not leave routing');
    const down = await eventually(
      async () => {
        const p = await peerNamed(hubA, B);
        return p?.status === 'unreachable' ? p : null;
      },
      'A to mark B unreachable',
      2 * ONE_POLL_MS,
    );
    assert.equal(down.consecutiveFailures, 3);
    assert.equal(down.probeFailure?.kind, 'unreachable');
    assert.match(hubA.log(), /capabilities probe of hub-b\.tail0\.ts\.net failed: HTTP 503/, 'the strikes were the 503s');
  });
});
