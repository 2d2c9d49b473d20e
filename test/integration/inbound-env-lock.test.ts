/**
 * HUB_POOL_INBOUND_DISABLED=true on a real Hub: the inbound half of the env kill switch, which
 * until now only the resolution table (src/config/kill-switch.test.ts) and the settings listing
 * tried. The Hub stays paired and keeps serving its own apps, a peer's forward is a 503 (never a
 * 403, which would read as the pairing gone), its capabilities offer no engines, and the in-app
 * switch cannot turn inbound back on while the variable is set: status names the environment,
 * and `cihub pool settings` says the variable forces it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startSimEngine, type SimEngine } from '../../src/sim/engine.js';
import { runCli } from '../helpers/hub-process.js';
import { FakePeer, POOL, fqdn, pairFakeWithPin, reservePorts, send, startNamedHub, status, type HubProcess } from './pairing-fixtures.js';

const MODEL = 'qwen3:8b';
const CHAT = `${POOL}/local/api/chat`;
const chatBody = { model: MODEL, messages: [{ role: 'user', content: 'hello' }], stream: false };
const LOCKED_OFF = { enabled: false, disabledBy: 'env', envLocked: true };

describe('HUB_POOL_INBOUND_DISABLED=true', () => {
  const fake = new FakePeer('inbound-env-sender');
  let engine: SimEngine;
  let hub: HubProcess;
  let hubUuid: string;

  before(async () => {
    engine = await startSimEngine({ dialect: 'ollama', models: [MODEL], timeScale: 0.01 });
    await fake.start();
    const ports = await reservePorts(['hub']);
    hub = await startNamedHub({
      name: fqdn('inbound-env'),
      port: ports.hub,
      origins: { [fake.name]: fake.origin },
      env: { OLLAMA_URL: engine.url, HUB_POOL_INBOUND_DISABLED: 'true' },
    });
    ({ hubUuid } = await pairFakeWithPin(hub, fake));
  });
  after(async () => {
    await hub?.stop();
    await Promise.all([engine?.close(), fake.close()]);
  });

  it("refuses a peer's forward with 503 and offers it no engines, while the pairing stands", async () => {
    const before = engine.state().requests;
    const forwarded = await fake.signed(hub, { recipient: hubUuid, method: 'POST', path: CHAT, body: chatBody });
    assert.equal(forwarded.status, 503, forwarded.text);
    assert.equal(engine.state().requests, before, 'nothing reached the engine');
    const caps = await fake.signed(hub, { recipient: hubUuid, method: 'GET', path: `${POOL}/capabilities` });
    assert.equal(caps.status, 200, caps.text);
    assert.equal(caps.json.acceptingWork, false);
    assert.deepEqual(caps.json.backends, []);
  });

  it("still serves this Hub's own apps from its engines", async () => {
    const res = await send(hub.url, 'POST', `${POOL}/v1/chat/completions`, { body: chatBody });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers['x-hub-pool-served-by'], 'local');
  });

  it('reports inbound off by the environment, outbound on, and the in-app switch cannot undo it', async () => {
    const before = await status(hub);
    assert.equal(before.reason, 'partially_disabled');
    assert.deepEqual(before.directions.inbound, LOCKED_OFF);
    assert.equal(before.directions.outbound.enabled, true);
    assert.equal((await hub.api('PATCH', `${POOL}/settings`, { poolInboundEnabled: true })).status, 200);
    assert.deepEqual((await status(hub)).directions.inbound, LOCKED_OFF);
    const forwarded = await fake.signed(hub, { recipient: hubUuid, method: 'POST', path: CHAT, body: chatBody });
    assert.equal(forwarded.status, 503, forwarded.text);
  });

  it('is named beside poolInboundEnabled in `cihub pool settings`', async () => {
    const run = await runCli(['pool', 'settings'], { dataDir: hub.dataDir });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^poolInboundEnabled\s.*HUB_POOL_INBOUND_DISABLED forces false$/m);
  });
});
