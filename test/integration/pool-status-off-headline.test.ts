/**
 * `cihub pool status` is where an operator checks that Hub Pool is on before pairing. On real
 * Hubs: switched off by its setting, the headline says so and names `cihub pool enable`, which
 * turns it back on; switched off by HUB_POOL_USER_DISABLED=true, the headline names the variable
 * and what clears it (removing it and restarting the Hub), since the setting cannot.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runCli, startHubProcess, type HubProcess } from '../helpers/hub-process.js';
import { startTogether } from '../helpers/start-together.js';

async function headline(hub: HubProcess): Promise<string> {
  const res = await runCli(['pool', 'status'], { dataDir: hub.dataDir });
  assert.equal(res.code, 0, res.stderr);
  const line = res.stdout.split('\n')[0];
  assert.ok(line !== undefined);
  return line;
}

describe('cihub pool status says how to turn Hub Pool on', () => {
  let plain: HubProcess;
  let locked: HubProcess;

  before(async () => {
    [plain, locked] = await startTogether([startHubProcess(), startHubProcess({ env: { HUB_POOL_USER_DISABLED: 'true' } })]);
  });
  after(async () => {
    await Promise.all([plain?.stop(), locked?.stop()]);
  });

  it('off by its setting: names cihub pool enable, and that command turns it back on', async () => {
    assert.doesNotMatch(await headline(plain), /^Hub Pool: off/, 'on by default');
    const off = await runCli(['pool', 'disable', '--yes'], { dataDir: plain.dataDir });
    assert.equal(off.code, 0, off.stderr);
    assert.equal(await headline(plain), 'Hub Pool: off: poolEnabled is false (turn on with `cihub pool enable`)');
    const on = await runCli(['pool', 'enable', '--yes'], { dataDir: plain.dataDir });
    assert.equal(on.code, 0, on.stderr);
    assert.doesNotMatch(await headline(plain), /^Hub Pool: off/);
  });

  it('off by HUB_POOL_USER_DISABLED=true: names the variable, and removing it and restarting as the way back', async () => {
    assert.equal(
      await headline(locked),
      "Hub Pool: off: HUB_POOL_USER_DISABLED=true in this Hub's environment, which the setting cannot override (remove it and restart the Hub)",
    );
  });
});
