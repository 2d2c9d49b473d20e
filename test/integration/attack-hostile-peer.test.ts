/**
 * A paired peer that lies in its capabilities document (issue 15, item 2), against a real Hub.
 * The peer is the test process, paired by PIN and signing, so its document is exactly what a
 * compromised Hub could publish: figures negative, huge, non-finite (1e999 parses as Infinity),
 * of the wrong type or out of their range, and keys that contradict each other. The Hub keeps
 * running, reads every such figure as not reported (never as 0, so the peer cannot look idle),
 * keeps only the readable model names, ranks the peer at the unmeasured mid-load, and goes on
 * serving; a document that is not an object at all is a failed poll, not a crash. The property
 * over generated documents is src/peers/capabilities-fuzz.test.ts.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startSimEngine, type SimEngine } from '../../src/sim/engine.js';
import { UNKNOWN_PEER_LOAD } from '../../src/placement/peer-load.js';
import type { PoolStatus } from '../../src/status/pool-status.js';
import {
  eventually,
  FakePeer,
  fqdn,
  isAlive,
  pairFakeWithPin,
  peerNamed,
  POOL,
  reservePorts,
  send,
  startNamedHub,
  status,
  type HubProcess,
} from './pairing-fixtures.js';

const HUB = fqdn('hub-h');
const MODEL = 'qwen3:8b';

describe('a peer whose capabilities lie', () => {
  let engine: SimEngine;
  let hub: HubProcess;
  const liar = new FakePeer('hub-liar');

  before(async () => {
    engine = await startSimEngine({ dialect: 'ollama', models: [MODEL], timeScale: 0.01 });
    await liar.start();
    const ports = await reservePorts(['hub']);
    hub = await startNamedHub({ name: HUB, port: ports.hub, origins: { [liar.name]: liar.origin }, env: { OLLAMA_URL: engine.url } });
    assert.equal((await hub.api('PATCH', `${POOL}/settings`, { poolHealthPollSeconds: 10 })).status, 200);
    await pairFakeWithPin(hub, liar);
  });
  after(async () => {
    await hub?.stop();
    await liar.close();
    await engine?.close();
  });

  /** Serves `text` as the next capabilities answers and waits for a poll that read it. */
  async function publish(text: string): Promise<void> {
    const served = liar.received.length;
    liar.answerCapabilities = (res) => res.writeHead(200, { 'content-type': 'application/json' }).end(text);
    await eventually(() => liar.received.slice(served).some((r) => r.url === `${POOL}/capabilities`), 'the Hub to poll the liar', 30_000);
    // The poll after that one started from a clean slate: the Hub has read the answer by then.
    const again = liar.received.length;
    await eventually(() => liar.received.slice(again).some((r) => r.url === `${POOL}/capabilities`), 'a second poll', 30_000);
  }

  it('reads negative, non-finite, out-of-range and contradictory figures as not reported, and ranks the peer mid-load', async () => {
    const long = 'x'.repeat(300);
    await publish(`{
      "nodeUuid": "${liar.uuid}",
      "hardwareTier": "ultra",
      "backends": [{ "kind": "ollama", "models": ["${MODEL}", "${long}", 5, null, ""] }, null, { "kind": 7, "models": ["${MODEL}"] }],
      "inFlightRequests": -1e999,
      "acceptingWork": true,
      "gpuPressure": -3,
      "maxPromptTokens": 1e999,
      "maxNumCtx": -1,
      "ollamaSlots": 1000000000,
      "containers": { "running": 5, "stopped": 0, "total": 2, "cpuPercent": 1e999, "memoryBytes": -1 },
      "unservableModels": "everything",
      "modelDetails": { "${MODEL}": { "parameterSize": "${long}", "capabilities": "tools" } },
      "throughput": { "${MODEL}": { "bands": [{ "fromTokens": 4096, "promptTokens": 4096, "tokensPerSec": 1e999, "deadline": false, "ageMs": -5 }], "decodeTokensPerSec": 1e999 } }
    }`);
    const view = await peerNamed(hub, liar.name);
    assert.ok(view, 'the row is still there');
    assert.equal(view.inFlightRequests, null, 'an infinite negative load is not a load');
    assert.equal(view.hardwareTier, null);
    assert.equal(view.maxPromptTokens, null);
    assert.equal(view.maxNumCtx, null);
    assert.equal(view.containers, null, 'more running than exist is no rollup');
    assert.deepEqual(view.unservableModels ?? [], [], 'a string is no list of models');
    assert.deepEqual(view.backends, [{ kind: 'ollama', models: [MODEL] }], 'only the readable names of the readable engine');
    const peer = (await status(hub)).peers.find((p) => p.nodeFqdn === liar.name) as PoolStatus['peers'][number];
    assert.equal(peer.queueDepth, UNKNOWN_PEER_LOAD, 'ranked at the unmeasured mid-load, not as idle');
    const res = await send(hub.url, 'POST', `${POOL}/api/chat`, { body: { model: MODEL, stream: false, messages: [{ role: 'user', content: 'hi' }] } });
    assert.equal(res.status, 200, res.text);
    assert.ok(isAlive(hub));
  });

  it('takes a peer that lists a model and also calls it unservable as not serving it, though it is the only one listing it', async () => {
    const onlyThere = 'liar-only:1b';
    await publish(
      JSON.stringify({
        nodeUuid: liar.uuid,
        hardwareTier: 'high-end',
        backends: [{ kind: 'ollama', models: [MODEL, onlyThere] }],
        inFlightRequests: 0,
        acceptingWork: true,
        unservableModels: [onlyThere],
      }),
    );
    const before = liar.received.filter((r) => r.url.startsWith(`${POOL}/local/`)).length;
    const res = await send(hub.url, 'POST', `${POOL}/api/chat`, { body: { model: onlyThere, stream: false, messages: [{ role: 'user', content: 'hi' }] } });
    assert.equal(res.status, 502, res.text);
    assert.match(res.text, /HUB_ERR_NO_CANDIDATE|No pool node/);
    assert.equal(liar.received.filter((r) => r.url.startsWith(`${POOL}/local/`)).length, before, 'nothing was forwarded to it');
  });

  it("lists no model name carrying terminal escapes in the pool's /api/tags and /v1/models", async () => {
    const escapes = ['evil\u001b]0;owned\u0007:1b', 'clear\u001b[2J:1b'];
    await publish(
      JSON.stringify({
        nodeUuid: liar.uuid,
        hardwareTier: null,
        backends: [{ kind: 'ollama', models: ['liar-clean:1b', ...escapes] }],
        inFlightRequests: 0,
        acceptingWork: true,
      }),
    );
    assert.deepEqual((await peerNamed(hub, liar.name))?.backends, [{ kind: 'ollama', models: ['liar-clean:1b'] }]);
    const tags = await send(hub.url, 'GET', `${POOL}/api/tags`);
    assert.equal(tags.status, 200, tags.text);
    assert.deepEqual((tags.json.models as { name: string }[]).map((m) => m.name).sort(), ['liar-clean:1b', MODEL]);
    const models = await send(hub.url, 'GET', `${POOL}/v1/models`);
    assert.equal(models.status, 200, models.text);
    assert.deepEqual((models.json.data as { id: string }[]).map((m) => m.id).sort(), ['liar-clean:1b', MODEL]);
    assert.ok(isAlive(hub));
  });

  it('survives a document that is not an object, or not whole, and keeps serving', async () => {
    // One document per poll, in turn; a failed poll may back off, so each is served once.
    const docs = ['[]', '{"inFlightRequests": 1e999, "backends": ['];
    const served = liar.received.length;
    let next = 0;
    liar.answerCapabilities = (res) => res.writeHead(200, { 'content-type': 'application/json' }).end(docs[Math.min(next++, docs.length - 1)]);
    await eventually(
      () => liar.received.slice(served).filter((r) => r.url === `${POOL}/capabilities`).length > docs.length,
      'the Hub to poll past both documents',
      90_000,
    );
    assert.ok(isAlive(hub));
    const res = await send(hub.url, 'POST', `${POOL}/api/chat`, { body: { model: MODEL, stream: false, messages: [{ role: 'user', content: 'hi' }] } });
    assert.equal(res.status, 200, res.text);
  });
});
