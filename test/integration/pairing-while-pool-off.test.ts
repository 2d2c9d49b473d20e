/**
 * A Hub with pooling switched off takes no part in pairing: a request that arrives is refused and
 * stored nowhere, and it will not mint a PIN, since no request could ever spend one. Both ways of
 * switching it off count: the operator's in-app switch (poolEnabled, `cihub pool disable`) and
 * HUB_POOL_USER_DISABLED in the environment. The guide's troubleshooting lists this as one cause
 * of a pairing that fails.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runCli, startHubProcess, type HubProcess } from '../helpers/hub-process.js';

const NAME = 'hub-off.tail0.ts.net';
const POOL = '/api/inference/pool';
const env = { HUB_NODE_FQDN: NAME, HUB_TAILNET_SUFFIX: 'tail0.ts.net' };

/** An anonymous pairing request, as another Hub on the tailnet would send it. */
async function requestPairing(hub: HubProcess): Promise<{ status: number; code: string | undefined }> {
  const res = await fetch(`${hub.url}${POOL}/pair/request`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ fromNodeFqdn: 'newcomer.tail0.ts.net', token: 'x'.repeat(43) }),
  });
  const json = (await res.json()) as { error?: { code?: string } };
  return { status: res.status, code: json.error?.code };
}

async function removeEveryRow(hub: HubProcess): Promise<void> {
  const { json } = await hub.api<{ peers: { id: string }[] }>('GET', `${POOL}/peers`);
  for (const { id } of json.peers) assert.equal((await hub.api('DELETE', `${POOL}/peers/${id}`)).status, 200);
}

/** `holding`: how the operator's own refusals name the switch, whose remedy differs (a restart without the flag, or `cihub pool enable`). */
async function assertRefusesPairing(hub: HubProcess, holding: RegExp): Promise<void> {
  const pin = await hub.api<{ error?: { code?: string }; pin?: string }>('POST', `${POOL}/pairing-pin`);
  assert.equal(pin.status, 503, JSON.stringify(pin.json));
  assert.equal(pin.json.error?.code, 'HUB_ERR_POOL_DISABLED');
  assert.equal(pin.json.pin, undefined, 'no digits are handed out');

  const cli = await runCli(['pool', 'pairing-pin', '--yes'], { dataDir: hub.dataDir });
  assert.equal(cli.code, 1, cli.stdout);
  assert.match(cli.stderr, /switched off/);
  assert.match(cli.stderr, holding);
  assert.doesNotMatch(cli.stdout, /\d{6}/);

  const pair = await runCli(['pool', 'pair', 'hub-other.tail0.ts.net', '--pin', '123456', '--yes'], { dataDir: hub.dataDir });
  assert.equal(pair.code, 1, pair.stdout);
  assert.match(pair.stderr, holding);

  assert.deepEqual(await requestPairing(hub), { status: 503, code: 'HUB_ERR_POOL_DISABLED' });
  const { json } = await hub.api<{ peers: unknown[] }>('GET', `${POOL}/peers`);
  assert.deepEqual(json.peers, [], 'the refused request left no row');
}

describe('pairing on a Hub whose pooling is switched off', () => {
  let hub: HubProcess | undefined;
  before(async () => {
    hub = await startHubProcess({ env });
  });
  after(async () => {
    await hub?.stop();
  });

  it('with the in-app switch off, it mints no PIN and refuses pairing requests; switched back on, it does both', async () => {
    const off = await runCli(['pool', 'disable', '--yes'], { dataDir: hub!.dataDir });
    assert.equal(off.code, 0, off.stderr);
    await assertRefusesPairing(hub!, /poolEnabled setting; cihub pool enable turns it on/);

    const on = await runCli(['pool', 'enable', '--yes'], { dataDir: hub!.dataDir });
    assert.equal(on.code, 0, on.stderr);
    assert.equal((await hub!.api('POST', `${POOL}/pairing-pin`)).status, 200);
    assert.equal((await requestPairing(hub!)).status, 200);
    await removeEveryRow(hub!);
  });

  it('with HUB_POOL_USER_DISABLED=true, it mints no PIN and refuses pairing requests', async () => {
    const dataDir = hub!.dataDir;
    await hub!.stop();
    hub = await startHubProcess({ dataDir, env: { ...env, HUB_POOL_USER_DISABLED: 'true' } });
    await assertRefusesPairing(hub, /HUB_POOL_USER_DISABLED=true in its environment/);
  });
});
