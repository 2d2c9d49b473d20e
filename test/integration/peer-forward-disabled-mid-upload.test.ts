/**
 * A peer's forward is admitted on its headers, before its body is read (issue 9, defect 5). A peer
 * disabled or unpaired while that body is still arriving exchanges no work: the Hub reads the
 * pairing again once the body is in, and refuses the forward then. Before, the row read at
 * admission stood, and a long upload begun before the switch was served (races audit, 2026-12-07).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { startSimEngine, type SimEngine } from '../../src/sim/engine.js';
import { FakePeer, POOL, fqdn, pairFakeWithPin, peerNamed, reservePorts, startNamedHub, type HubProcess } from './pairing-fixtures.js';

const MODEL = 'qwen3:8b';
const HUB = fqdn('hub-b');
const CHAT = `${POOL}/local/api/chat`;

/** Sends a signed forward's headers and the first half of its body, then waits for `between` before the rest. */
function slowForward(hub: HubProcess, headers: Record<string, string>, body: Buffer, between: () => Promise<void>): Promise<{ status: number; text: string }> {
  const url = new URL(hub.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method: 'POST',
        path: CHAT,
        headers: { ...headers, 'content-type': 'application/json', 'content-length': String(body.length) },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    const half = Math.floor(body.length / 2);
    req.write(body.subarray(0, half));
    void between().then(() => req.end(body.subarray(half)), reject);
  });
}

describe("a peer's forward whose pairing changes while its body is still arriving", () => {
  let engine: SimEngine;
  let hub: HubProcess;
  const fake = new FakePeer('uploader');
  let hubUuid = '';
  const body = Buffer.from(JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hello '.repeat(2000) }], stream: false }));

  before(async () => {
    engine = await startSimEngine({ dialect: 'ollama', models: [MODEL], timeScale: 0.01 });
    await fake.start();
    const ports = await reservePorts(['hub']);
    hub = await startNamedHub({ name: HUB, port: ports.hub, origins: { [fake.name]: fake.origin }, env: { OLLAMA_URL: engine.url } });
    ({ hubUuid } = await pairFakeWithPin(hub, fake));
  });
  after(async () => {
    await hub?.stop();
    await fake.close();
    await engine?.close();
  });

  const peerAction = async (action: 'disable' | 'enable') => {
    const row = await peerNamed(hub, fake.name);
    assert.ok(row);
    assert.equal((await hub.api('POST', `${POOL}/peers/${row.id}/${action}`)).status, 200);
  };

  it('is served when nothing changes (the control)', async () => {
    const served = engine.state().requests;
    const res = await slowForward(hub, fake.sign({ recipient: hubUuid, method: 'POST', path: CHAT }), body, async () => {});
    assert.equal(res.status, 200, res.text);
    assert.equal(engine.state().requests, served + 1);
  });

  it('is refused, and reaches no engine, when the peer is disabled mid-upload', async () => {
    const served = engine.state().requests;
    try {
      const res = await slowForward(hub, fake.sign({ recipient: hubUuid, method: 'POST', path: CHAT }), body, () => peerAction('disable'));
      assert.equal(res.status, 503, res.text);
      assert.match(res.text, /HUB_ERR_PEER_NOT_ACCEPTING/);
      assert.equal(engine.state().requests, served, 'nothing reached the engine');
    } finally {
      await peerAction('enable');
    }
  });
});
