/**
 * The server's requestTimeout is not what cuts a long answer. When turns were reported cut at a
 * steady ~30 s (a release blocker that read as placement timing out), the Hub's own requestTimeout
 * (then 30 s, REQUEST_TIMEOUT_MS now) was the first suspect; Node stops that clock once the request
 * has been read, so an answer that takes longer is untouched by it, and the cuts came from the
 * callers' read timeouts. This pins that on a real
 * socket through the proxy.
 *
 * The deadline is a constant with no setting behind it, by design, so the engine here really
 * holds its headers past it: the test takes a little over REQUEST_TIMEOUT_MS of wall time.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { REQUEST_TIMEOUT_MS } from '../../src/http/edge.js';
import { startSimEngine, type SimEngine } from '../../src/sim/engine.js';
import { startHubProcess, type HubProcess } from '../helpers/hub-process.js';
import { scaled } from '../helpers/time-scale.js';

const MODEL = 'qwen3:8b';
/** How long the engine holds the response headers: past the request deadline and its 1 s check. */
const ENGINE_HOLD_MS = REQUEST_TIMEOUT_MS + 10_000;

describe('the "times out at 30 s" release blocker: the request deadline and an answer slower than it', () => {
  let engine: SimEngine;
  let hub: HubProcess;

  before(async () => {
    // Real time (scale 1): the simulated hold is the wall-clock hold.
    engine = await startSimEngine({ dialect: 'ollama', models: [MODEL], timeScale: 1, answerTokens: 4 });
    hub = await startHubProcess({ env: { OLLAMA_URL: engine.url } });
  });
  after(async () => {
    await hub?.stop();
    await engine?.close();
  });

  it('relays a 200 and its body when the engine holds its headers past the request deadline', { timeout: scaled(ENGINE_HOLD_MS + 60_000) }, async () => {
    await engine.setFault({ mode: 'slow-first-byte', model: MODEL, delayMs: ENGINE_HOLD_MS, count: 1 });
    const res = await request(`${hub.pool}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, stream: false, messages: [{ role: 'user', content: 'hello' }] }),
      headersTimeout: scaled(ENGINE_HOLD_MS + 30_000),
      bodyTimeout: scaled(ENGINE_HOLD_MS + 30_000),
    });
    assert.equal(res.statusCode, 200);
    const body = (await res.body.json()) as { choices: { finish_reason: string | null; message: { content: string } }[] };
    assert.equal(body.choices[0]?.finish_reason, 'stop', JSON.stringify(body));
    assert.ok(body.choices[0]!.message.content.length > 0, 'the answer arrived whole');
  });
});
