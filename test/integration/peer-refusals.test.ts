/**
 * A peer's own refusal of a forward, through a real Hub (spec, Failover; issue 17, item 3). A
 * peer answers 401, 403 or 404 from its own pairing checks when it stopped trusting this Hub or
 * was unpaired from its side: the request moves on and the peer's cached capabilities are
 * dropped until its next good poll. A refusal one of its engines gave is marked with
 * X-Hub-Pool-Backend and keeps the pairing and the inventory. The decision itself is the table
 * in src/proxy/failover-policy.test.ts; this shows its effect, which only the proxy can.
 *
 * The peers are FakePeers, so their answers are scripted. After the first good poll each one's
 * capabilities answer is held unanswered, so no later good poll can restore what a refusal
 * dropped while the test looks.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { request } from 'undici';
import { eventually, type HubProcess } from '../helpers/hub-process.js';
import { scaled } from '../helpers/time-scale.js';
import { FakePeer, fqdn, pairFakeWithPin, peerNamed, POOL, reservePorts, startNamedHub } from './pairing-fixtures.js';
import type { RoutingLogEntry, RoutingLogPage } from '../../src/routing-log/entry.js';

interface Case {
  readonly name: string;
  readonly status: number;
  /** The engine kind the peer marks the answer with; null: the peer's own refusal (unmarked). */
  readonly marked: 'ollama' | null;
  /** What the app gets. */
  readonly appStatus: number;
  readonly dropped: boolean;
}

const CASES: readonly Case[] = [
  { name: 'its own 404 (unpaired on its side)', status: 404, marked: null, appStatus: 502, dropped: true },
  { name: 'its own 403', status: 403, marked: null, appStatus: 502, dropped: true },
  { name: 'its own 401', status: 401, marked: null, appStatus: 502, dropped: true },
  { name: 'a 404 its engine gave (marked)', status: 404, marked: 'ollama', appStatus: 404, dropped: false },
  { name: 'a 403 its engine gave (marked), from the last candidate', status: 403, marked: 'ollama', appStatus: 403, dropped: false },
];

const modelOf = (i: number) => `refusal-${i}:8b`;

async function chat(hub: HubProcess, model: string): Promise<{ status: number; id: string }> {
  const res = await request(`${hub.pool}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], stream: false }),
  });
  await res.body.text();
  return { status: res.statusCode, id: String(res.headers['x-hub-pool-request-id']) };
}

async function row(hub: HubProcess, id: string): Promise<RoutingLogEntry> {
  return eventually(async () => {
    const { json } = await hub.api<RoutingLogPage>('GET', `${POOL}/routing-log`);
    return json.entries.find((e) => e.id === id && e.outcome !== 'pending');
  }, `row ${id} to settle`);
}

async function listed(hub: HubProcess): Promise<string[]> {
  const res = await request(`${hub.pool}/v1/models`);
  return ((await res.body.json()) as { data: { id: string }[] }).data.map((m) => m.id);
}

const forwards = (peer: FakePeer) => peer.received.filter((r) => r.method === 'POST' && r.url.includes('/local/')).length;

describe('a peer that refuses a forward', () => {
  let hub: HubProcess;
  const peers = CASES.map((_, i) => new FakePeer(`refuser-${i}`));
  const held: ServerResponse[] = [];

  before(async () => {
    await Promise.all(peers.map((p) => p.start()));
    const ports = await reservePorts(['hub']);
    hub = await startNamedHub({ name: fqdn('hub-refused'), port: ports.hub, origins: Object.fromEntries(peers.map((p) => [p.name, p.origin])) });
    for (const [i, peer] of peers.entries()) {
      peer.answerCapabilities = (res) => {
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            nodeUuid: peer.uuid,
            hardwareTier: null,
            backends: [{ kind: 'ollama', models: [modelOf(i)] }],
            inFlightRequests: 0,
            acceptingWork: true,
          }),
        );
      };
      await pairFakeWithPin(hub, peer);
      await eventually(async () => (await peerNamed(hub, peer.name))?.backends?.length, `${peer.name} polled`, scaled(15_000));
      // No good poll from now on: what a refusal drops stays dropped while the test looks.
      peer.answerCapabilities = (res) => void held.push(res);
    }
  });

  after(async () => {
    for (const res of held) res.destroy();
    await hub?.stop();
    await Promise.all(peers.map((p) => p.close()));
  });

  for (const [i, c] of CASES.entries()) {
    it(`${c.name}: ${c.dropped ? "moves on and drops the peer's capabilities" : "goes to the app as the engine's answer (the last candidate) and keeps the pairing and the inventory"}`, async () => {
      const peer = peers[i]!;
      const model = modelOf(i);
      peer.answerLocal = (res) => {
        const body = JSON.stringify({ error: { code: 'REFUSED', message: 'refused' } });
        res.writeHead(c.status, { 'content-type': 'application/json', ...(c.marked ? { 'x-hub-pool-backend': c.marked } : {}) }).end(body);
      };
      assert.ok((await listed(hub)).includes(model), "the peer's model is listed before");

      const first = await chat(hub, model);
      assert.equal(first.status, c.appStatus);
      const r = await row(hub, first.id);
      // A failed-over attempt is recorded with its status; a committed answer is the row's own status.
      if (c.dropped) assert.equal(r.attempts[0]?.status, c.status);
      else assert.deepEqual([r.status, r.attempts], [c.status, []]);
      assert.equal(forwards(peer), 1);

      const view = await peerNamed(hub, peer.name);
      assert.equal(view?.status, 'connected', 'the pairing itself stays: only its cached capabilities may go');
      if (c.dropped) {
        assert.match(r.attempts[0]?.reason ?? '', /the peer refused this Hub/);
        assert.equal(view?.backends, null, 'its capabilities are dropped');
        assert.ok(!(await listed(hub)).includes(model), 'its models leave the listing');
        const again = await chat(hub, model);
        assert.notEqual(again.status, 200);
        assert.equal(forwards(peer), 1, 'it is not asked again before a good poll');
      } else {
        assert.deepEqual(
          view?.backends?.map((b) => b.models),
          [[model]],
          'its inventory is kept',
        );
        assert.ok((await listed(hub)).includes(model));
        await chat(hub, model);
        assert.equal(forwards(peer), 2, 'it stays a candidate');
      }
    });
  }
});
