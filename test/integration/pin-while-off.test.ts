/**
 * A Hub with pooling switched off mints no pairing PIN, whichever master switch holds it off
 * (the guide's Troubleshooting names this among what a switched-off Hub does; docs/errors.md,
 * HUB_ERR_POOL_DISABLED). Such a Hub takes no pairing request, so a PIN it handed out could
 * never be used: the API refuses with 503 and the CLI prints no PIN, saying pooling is off.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../helpers/hub-process.js';
import { startTogether } from '../helpers/start-together.js';
import { POOL, fqdn, reservePorts, startNamedHub, status, type HubProcess } from './pairing-fixtures.js';

const PIN = `${POOL}/pairing-pin`;

interface Refusal {
  readonly error: { readonly code: string; readonly message: string };
}

describe('a pairing PIN while pooling is switched off', () => {
  let plain: HubProcess;
  let envOff: HubProcess;

  before(async () => {
    const ports = await reservePorts(['plain', 'envOff']);
    [plain, envOff] = await startTogether([
      startNamedHub({ name: fqdn('pin-plain'), port: ports.plain, origins: {} }),
      startNamedHub({ name: fqdn('pin-env-off'), port: ports.envOff, origins: {}, env: { HUB_POOL_USER_DISABLED: 'true' } }),
    ]);
  });
  after(async () => {
    await Promise.all([plain, envOff].filter(Boolean).map((h) => h.stop()));
  });

  async function refusesAPin(hub: HubProcess): Promise<void> {
    const answer = await hub.api<Refusal>('POST', PIN);
    assert.equal(answer.status, 503, JSON.stringify(answer.json));
    assert.equal(answer.json.error.code, 'HUB_ERR_POOL_DISABLED');
    assert.equal((await status(hub)).pairingPin.active, false, 'no PIN is outstanding');
    const cli = await runCli(['pool', 'pairing-pin', '--yes'], { dataDir: hub.dataDir });
    assert.notEqual(cli.code, 0, cli.stdout);
    assert.doesNotMatch(cli.stdout, /Pairing PIN: \d{6}/);
    assert.match(cli.stderr, /Hub Pool is switched off on this Hub/);
  }

  it('mints one while the pool is on', async () => {
    const answer = await plain.api<{ pin: string }>('POST', PIN);
    assert.equal(answer.status, 200, JSON.stringify(answer.json));
    assert.match(answer.json.pin, /^\d{6}$/);
    assert.equal((await plain.api('DELETE', PIN)).status, 200);
  });

  it('refuses one while poolEnabled is false, and mints again once it is true', async () => {
    assert.equal((await plain.api('PATCH', `${POOL}/settings`, { poolEnabled: false })).status, 200);
    try {
      await refusesAPin(plain);
    } finally {
      assert.equal((await plain.api('PATCH', `${POOL}/settings`, { poolEnabled: true })).status, 200);
    }
    const again = await plain.api<{ pin: string }>('POST', PIN);
    assert.equal(again.status, 200, JSON.stringify(again.json));
    assert.equal((await plain.api('DELETE', PIN)).status, 200);
  });

  it('refuses one under HUB_POOL_USER_DISABLED, even with poolEnabled saved as true', async () => {
    assert.equal((await envOff.api('PATCH', `${POOL}/settings`, { poolEnabled: true })).status, 200);
    await refusesAPin(envOff);
  });
});
