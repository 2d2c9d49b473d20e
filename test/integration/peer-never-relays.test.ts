/**
 * A peer's forward is served from the receiving Hub's own engines or not at all: a Hub never
 * passes another Hub's request on to a third. Without this, a stale capabilities snapshot (a
 * model dropped from the receiver since its last poll) would send work two hops, and two Hubs
 * that each hold the other's model in a stale view could pass one request back and forth.
 *
 * Hub B is paired with Hub C, which alone holds C_ONLY; B's own app reaches it through C (the
 * control: B can and does use C for itself). A test peer paired with B then forwards a C_ONLY
 * request to B as a peer would. B answers it with a failure, and C's engine never sees it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startSimEngine, type SimEngine } from '../../src/sim/engine.js';
import type { RoutingLogPage } from '../../src/routing-log/entry.js';
import { FakePeer, POOL, fqdn, pairFakeWithPin, pairHubs, reservePorts, send, startNamedHub, type HubProcess } from './pairing-fixtures.js';

const B_OWN = 'b-own:8b';
const C_ONLY = 'c-only:8b';
const B = fqdn('relay-b');
const C = fqdn('relay-c');
const LOCAL_CHAT = `${POOL}/local/v1/chat/completions`;
const chatBody = (model: string) => ({ model, messages: [{ role: 'user', content: 'hello' }], stream: false });

async function routingLog(hub: HubProcess): Promise<RoutingLogPage> {
  const res = await hub.api<RoutingLogPage>('GET', `${POOL}/routing-log`);
  assert.equal(res.status, 200);
  return res.json;
}

describe('a peer forward reaching a Hub that does not hold the model', () => {
  const forwarder = new FakePeer('relay-forwarder');
  let engineB: SimEngine;
  let engineC: SimEngine;
  let b: HubProcess;
  let c: HubProcess;
  let bUuid: string;

  before(async () => {
    engineB = await startSimEngine({ dialect: 'ollama', models: [B_OWN], timeScale: 0.01 });
    engineC = await startSimEngine({ dialect: 'ollama', models: [C_ONLY], timeScale: 0.01 });
    await forwarder.start();
    const ports = await reservePorts(['b', 'c']);
    const origin = (port: number) => `http://127.0.0.1:${port}`;
    b = await startNamedHub({
      name: B,
      port: ports.b,
      origins: { [C]: origin(ports.c), [forwarder.name]: forwarder.origin },
      env: { OLLAMA_URL: engineB.url },
    });
    c = await startNamedHub({ name: C, port: ports.c, origins: { [B]: origin(ports.b) }, env: { OLLAMA_URL: engineC.url } });
    await pairHubs(b, B, c, C);
    ({ hubUuid: bUuid } = await pairFakeWithPin(b, forwarder));
  });
  after(async () => {
    await Promise.all([b?.stop(), c?.stop()]);
    await Promise.all([engineB?.close(), engineC?.close(), forwarder.close()]);
  });

  it("is served by C when B's own app asks for it (B reaches C for itself)", async () => {
    const res = await send(b.url, 'POST', `${POOL}/v1/chat/completions`, { body: chatBody(C_ONLY) });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers['x-hub-pool-served-by'], C);
  });

  it("is served by B's own engine when B holds the model", async () => {
    const body = chatBody(B_OWN);
    const res = await forwarder.signed(b, { recipient: bUuid, method: 'POST', path: LOCAL_CHAT, body });
    assert.equal(res.status, 200, res.text);
  });

  it('fails on B, and goes no further: C neither receives it nor logs it', async () => {
    const cRequestsBefore = engineC.state().requests;
    const cRowsBefore = (await routingLog(c)).summary.totalRecorded;
    const body = chatBody(C_ONLY);
    const res = await forwarder.signed(b, { recipient: bUuid, method: 'POST', path: LOCAL_CHAT, body });

    assert.ok(res.status >= 400, `B refuses what it cannot serve itself (${res.status}: ${res.text})`);
    assert.notEqual(res.headers['x-hub-pool-served-by'], C);
    assert.equal(engineC.state().requests, cRequestsBefore, "C's engine received nothing");
    assert.equal((await routingLog(c)).summary.totalRecorded, cRowsBefore, 'C placed nothing');
    const row = (await routingLog(b)).entries.find((e) => e.direction === 'inbound' && e.model === C_ONLY);
    assert.ok(row, 'B logged the forward as inbound');
    assert.equal(row.outcome, 'failed');
    assert.ok(!row.attempts.some((a) => a.node === C), `B tried nothing on C: ${JSON.stringify(row.attempts)}`);
  });
});
