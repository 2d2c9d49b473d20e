/**
 * A hostile engine and a hostile peer against a real Hub process (issue 9, defects 2 and 3).
 * Whatever they send, the Hub stays up, keeps what it can read, treats an oversized or endless
 * answer as a failure of its sender, and goes on serving inference from a well-behaved engine.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { startSimEngine, type SimEngine } from '../../src/sim/engine.js';
import type { PoolStatus } from '../../src/status/pool-status.js';
import { ENGINE_LISTING_MAX_BYTES } from '../../src/engines/probe-fetch.js';
import { PEER_CAPABILITIES_MAX_BYTES, PEER_CAPABILITIES_MAX_STRUCTURE } from '../../src/peers/peer-client.js';
import { eventually, startHubProcess, type HubProcess } from '../helpers/hub-process.js';
import { declaresLength, flood, json, rawJson, startHostileServer, type FloodRecord, type HostileServer } from '../helpers/hostile-upstream.js';
import { scaled } from '../helpers/time-scale.js';
import { FakePeer, fqdn, pairFakeWithPin, peerNamed, reservePorts, startNamedHub } from './pairing-fixtures.js';

const POOL = '/api/inference/pool';
const GOOD_MODEL = 'good-model';

function alive(hub: HubProcess): boolean {
  return hub.child.exitCode === null && hub.child.signalCode === null;
}

async function localBackends(hub: HubProcess): Promise<PoolStatus['localNode']['backends']> {
  const res = await hub.api<PoolStatus>('GET', `${POOL}/status`);
  assert.equal(res.status, 200, JSON.stringify(res.json));
  return res.json.localNode.backends;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a test reads any JSON answer
async function get(hub: HubProcess, path: string): Promise<{ status: number; json: any }> {
  return hub.api<any>('GET', `${POOL}${path}`); // eslint-disable-line @typescript-eslint/no-explicit-any -- a test reads any JSON answer
}

/** One chat through the official OpenAI client, served by the well-behaved engine. */
async function servesInference(hub: HubProcess): Promise<void> {
  const client = new OpenAI({ baseURL: `${hub.pool}/v1`, apiKey: 'unused-inside-the-machine', maxRetries: 0 });
  const answer = await client.chat.completions.create({ model: GOOD_MODEL, messages: [{ role: 'user', content: 'hello' }] });
  assert.equal(answer.choices[0]?.message.role, 'assistant');
}

describe('an engine that lists null entries', () => {
  let good: SimEngine;
  let hostile: HostileServer;
  let hub: HubProcess;

  before(async () => {
    good = await startSimEngine({ dialect: 'vllm', models: [GOOD_MODEL], timeScale: 0.01 });
    // One server posing as an Ollama and as a llama.cpp server; every list carries a null.
    hostile = await startHostileServer({
      '/api/tags': json({ models: [null, 7, 'text', [], { name: null }, { name: 'real:1b', details: null, capabilities: [null, 'tools'], size: 'big' }] }),
      '/api/ps': json({ models: [null] }),
      '/v1/models': json({ object: 'list', data: [null, { id: 5 }, { id: 'listed-model', owned_by: null }] }),
    });
    hub = await startHubProcess({ env: { OLLAMA_URL: hostile.url, LLAMACPP_URL: hostile.url, VLLM_URL: good.url } });
  });

  after(async () => {
    await hub?.stop();
    await Promise.all([good?.close(), hostile?.close()]);
  });

  it('probes it, keeps the readable models and stays up', async () => {
    const backends = await eventually(
      async () => {
        const b = await localBackends(hub);
        return b.every((x) => x.probedMsAgo !== null) ? b : null;
      },
      'every engine probed',
      scaled(15_000),
    );
    assert.deepEqual(backends.find((b) => b.kind === 'ollama')?.models, ['real:1b']);
    assert.deepEqual(backends.find((b) => b.kind === 'llamacpp')?.models, ['listed-model']);
    assert.ok(alive(hub), 'the Hub is still running');
  });

  it('answers /api/tags, /v1/models and /api/ps with the entries it can read', async () => {
    const tags = await get(hub, '/api/tags');
    assert.equal(tags.status, 200, JSON.stringify(tags.json));
    assert.deepEqual(
      tags.json.models.map((m: { name: string }) => m.name),
      ['real:1b'],
    );
    const models = await get(hub, '/v1/models');
    assert.equal(models.status, 200, JSON.stringify(models.json));
    assert.deepEqual(
      models.json.data.map((m: { id: string }) => m.id).sort(),
      [GOOD_MODEL, 'listed-model'].sort(),
      "real:1b is listed by /api/tags only; the hostile server's /v1/models is its OpenAI layer",
    );
    const ps = await get(hub, '/api/ps');
    assert.equal(ps.status, 200, JSON.stringify(ps.json));
    assert.deepEqual(ps.json.models, []);
    assert.ok(alive(hub));
  });

  it('keeps serving inference from the engine that behaves', async () => {
    await servesInference(hub);
    assert.ok(alive(hub));
  });
});

describe('an engine that nests a listing entry thousands deep', () => {
  let hostile: HostileServer;
  let good: SimEngine;
  let hub: HubProcess;
  const DEPTH = 200_000;
  const deep = `${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}`;

  before(async () => {
    good = await startSimEngine({ dialect: 'vllm', models: [GOOD_MODEL], timeScale: 0.01 });
    hostile = await startHostileServer({
      '/api/tags': rawJson(`{"models":[{"name":"real:1b","size":5,"extra":${deep}}]}`),
      '/api/ps': rawJson(`{"models":[{"name":"real:1b","extra":${deep}}]}`),
    });
    hub = await startHubProcess({ env: { OLLAMA_URL: hostile.url, VLLM_URL: good.url } });
  });

  after(async () => {
    await hub?.stop();
    await Promise.all([good?.close(), hostile?.close()]);
  });

  it('lists the model without the field nested past the bound, and the listings still answer', async () => {
    await eventually(async () => (await localBackends(hub)).find((b) => b.kind === 'ollama' && b.healthy), 'the nesting engine probed', scaled(15_000));
    const tags = await get(hub, '/api/tags');
    assert.equal(tags.status, 200, JSON.stringify(tags.json));
    assert.deepEqual(tags.json.models, [{ name: 'real:1b', size: 5 }]);
    const ps = await get(hub, '/api/ps');
    assert.equal(ps.status, 200, JSON.stringify(ps.json));
    assert.deepEqual(ps.json.models, [{ name: 'real:1b' }]);
    await servesInference(hub);
    assert.ok(alive(hub));
  });
});

describe('engine answers past their byte limit', () => {
  let good: SimEngine;
  let flooding: HostileServer;
  let declaring: HostileServer;
  let hub: HubProcess;
  const floods: FloodRecord[] = [];
  const FLOOD_BYTES = 4 * ENGINE_LISTING_MAX_BYTES;

  before(async () => {
    good = await startSimEngine({ dialect: 'vllm', models: [GOOD_MODEL], timeScale: 0.01 });
    flooding = await startHostileServer({ '/api/tags': flood(FLOOD_BYTES, floods) }, floods);
    // 3 GiB announced: more than V8 can hold as one string.
    declaring = await startHostileServer({ '/v1/models': declaresLength(3 * 1024 ** 3) });
    hub = await startHubProcess({ env: { OLLAMA_URL: flooding.url, LLAMACPP_URL: declaring.url, VLLM_URL: good.url } });
  });

  after(async () => {
    await hub?.stop();
    await Promise.all([good?.close(), flooding?.close(), declaring?.close()]);
  });

  it('abandons a listing at its limit and marks the engine failed, naming the limit', async () => {
    const ollama = await eventually(
      async () => (await localBackends(hub)).find((b) => b.kind === 'ollama' && b.probedMsAgo !== null),
      'the flooding engine probed',
      scaled(20_000),
    );
    assert.equal(ollama.healthy, false);
    assert.match(ollama.error ?? '', new RegExp(`${ENGINE_LISTING_MAX_BYTES}-byte limit`));
    const first = floods[0];
    assert.ok(first, 'the Hub asked the flooding engine');
    await first.done;
    assert.equal(first.cutShort, true, 'the Hub hung up before the flood ended');
    assert.ok(first.written < 2 * ENGINE_LISTING_MAX_BYTES, `read stopped near the limit (${first.written} bytes written)`);
  });

  it('refuses an announced multi-GiB body without reading it', async () => {
    const llamacpp = await eventually(
      async () => (await localBackends(hub)).find((b) => b.kind === 'llamacpp' && b.probedMsAgo !== null),
      'the declaring engine probed',
      scaled(20_000),
    );
    assert.equal(llamacpp.healthy, false);
    assert.match(llamacpp.error ?? '', /byte limit/);
  });

  it('stays up and serves inference from the engine that behaves', async () => {
    await servesInference(hub);
    assert.ok(alive(hub));
  });
});

describe('a peer whose capabilities answer never ends', () => {
  const NAME = fqdn('hub-target');
  let hub: HubProcess;
  let good: SimEngine;
  const peer = new FakePeer('hostile-peer');
  const floods: FloodRecord[] = [];

  before(async () => {
    good = await startSimEngine({ dialect: 'vllm', models: [GOOD_MODEL], timeScale: 0.01 });
    await peer.start();
    const ports = await reservePorts(['hub']);
    hub = await startNamedHub({ name: NAME, port: ports.hub, origins: { [peer.name]: peer.origin }, env: { VLLM_URL: good.url } });
    peer.answerCapabilities = flood(4 * PEER_CAPABILITIES_MAX_BYTES, floods, '{"nodeUuid":null,"backends":[{"kind":"ollama","models":[');
  });

  after(async () => {
    await hub?.stop();
    await Promise.all([good?.close(), peer.close()]);
  });

  it('abandons the read at the limit and counts the poll as a failure of that peer', async () => {
    await pairFakeWithPin(hub, peer);
    const view = await eventually(
      async () => {
        const p = await peerNamed(hub, peer.name);
        return p?.probeFailure ? p : null;
      },
      'the first poll of the hostile peer to fail',
      scaled(30_000),
    );
    assert.equal(view.probeFailure?.kind, 'unreachable');
    assert.equal(view.backends, null, 'nothing of the oversized document was kept');
    const first = floods[0];
    assert.ok(first, 'the Hub polled the peer');
    await first.done;
    assert.equal(first.cutShort, true);
    assert.ok(first.written < 2 * PEER_CAPABILITIES_MAX_BYTES, `read stopped near the limit (${first.written} bytes written)`);
    assert.match(hub.log(), new RegExp(`larger than the ${PEER_CAPABILITIES_MAX_BYTES}-byte limit`));
    await servesInference(hub);
    assert.ok(alive(hub));
  });
});

describe('a peer whose capabilities document is one object of a million keys', () => {
  const NAME = fqdn('hub-keys');
  let hub: HubProcess;
  let good: SimEngine;
  const peer = new FakePeer('many-keys');

  before(async () => {
    good = await startSimEngine({ dialect: 'vllm', models: [GOOD_MODEL], timeScale: 0.01 });
    await peer.start();
    const ports = await reservePorts(['hub']);
    hub = await startNamedHub({ name: NAME, port: ports.hub, origins: { [peer.name]: peer.origin }, env: { VLLM_URL: good.url } });
    // About 12 MB, well inside the byte limit: only its structure gives it away.
    const keys = Array.from({ length: 1_000_000 }, (_, i) => `"k${i}":1`).join(',');
    const doc = Buffer.from(`{"nodeUuid":null,"backends":[],"inFlightRequests":0,"acceptingWork":true,"padding":{${keys}}}`);
    assert.ok(doc.length < PEER_CAPABILITIES_MAX_BYTES);
    peer.answerCapabilities = (res) => res.writeHead(200, { 'content-type': 'application/json' }).end(doc);
  });

  after(async () => {
    await hub?.stop();
    await Promise.all([good?.close(), peer.close()]);
  });

  it('refuses it unparsed, as a failed poll naming the bound, and keeps serving', async () => {
    await pairFakeWithPin(hub, peer);
    const view = await eventually(
      async () => {
        const p = await peerNamed(hub, peer.name);
        return p?.probeFailure ? p : null;
      },
      'the first poll of the peer to fail',
      scaled(30_000),
    );
    assert.equal(view.probeFailure?.kind, 'unreachable');
    assert.equal(view.backends, null);
    assert.match(hub.log(), new RegExp(`holds more than ${PEER_CAPABILITIES_MAX_STRUCTURE} JSON objects, arrays and members`));
    await servesInference(hub);
    assert.ok(alive(hub));
  });
});

describe('a peer claiming a huge tools model to capture auto', () => {
  const NAME = fqdn('hub-auto');
  const LOCAL_MODEL = 'qwen3:8b';
  let hub: HubProcess;
  let engine: SimEngine;
  const peer = new FakePeer('auto-bait');

  before(async () => {
    engine = await startSimEngine({
      dialect: 'ollama',
      models: [{ name: LOCAL_MODEL, parameterSize: '8.2B', capabilities: ['completion', 'tools'] }],
      timeScale: 0.01,
    });
    await peer.start();
    const ports = await reservePorts(['hub']);
    hub = await startNamedHub({ name: NAME, port: ports.hub, origins: { [peer.name]: peer.origin }, env: { OLLAMA_URL: engine.url } });
    const tools = { parameterSize: '999999T', capabilities: ['completion', 'tools'] };
    peer.answerCapabilities = json({
      nodeUuid: peer.uuid,
      hardwareTier: null,
      backends: [{ kind: 'ollama', models: ['bait:latest', 'auto', 'digits:1b'] }],
      inFlightRequests: 0,
      acceptingWork: true,
      modelDetails: { 'bait:latest': tools, auto: tools, 'digits:1b': { parameterSize: `${'9'.repeat(400)}B`, capabilities: ['tools'] } },
    });
    await pairFakeWithPin(hub, peer);
    await eventually(async () => (await peerNamed(hub, peer.name))?.backends?.length, 'the bait peer polled', scaled(15_000));
  });

  after(async () => {
    await hub?.stop();
    await Promise.all([engine?.close(), peer.close()]);
  });

  it('resolves auto to the plausible local tools model, not the claim', async () => {
    const client = new OpenAI({ baseURL: `${hub.pool}/v1`, apiKey: 'unused-inside-the-machine', maxRetries: 0 });
    const { data, response } = await client.chat.completions.create({ model: 'auto', messages: [{ role: 'user', content: 'hello' }] }).withResponse();
    assert.equal(response.headers.get('x-hub-pool-model'), LOCAL_MODEL);
    assert.equal(data.choices[0]?.message.role, 'assistant');
    assert.equal(peer.received.filter((r) => r.url.includes('/local/')).length, 0, 'nothing was forwarded to the bait peer');
  });
});
