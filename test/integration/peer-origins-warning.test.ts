/**
 * HUB_POOL_PEER_ORIGINS must not go unnoticed on a real tailnet: status, its CLI page and doctor's
 * D1 name every entry. An entry keyed by a LAN address counts as much as one keyed by a name:
 * probing and pairing by that address then send the PIN and the request to another origin, and
 * before 2026-12-07 such a map left status quiet and doctor green.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { PoolStatus } from '../../src/status/pool-status.js';
import { runCli, startHubProcess, type HubProcess } from '../helpers/hub-process.js';

const POOL = '/api/inference/pool';
const ADDRESS = '192.168.77.9:5002';
const ORIGIN = 'http://127.0.0.1:5862';

describe('a HUB_POOL_PEER_ORIGINS that maps only a LAN address', () => {
  let hub: HubProcess;
  before(async () => {
    hub = await startHubProcess({
      env: { HUB_NODE_FQDN: 'hub-a.tail0.ts.net', HUB_TAILNET_SUFFIX: 'tail0.ts.net', HUB_POOL_PEER_ORIGINS: `${ADDRESS}=${ORIGIN}` },
    });
  });
  after(() => hub?.stop());

  it('is reported by status as a map in force, naming the entry', async () => {
    const { json } = await hub.api<PoolStatus>('GET', `${POOL}/status`);
    assert.deepEqual(json.localNode.peerOriginsMap, { active: true, entries: [{ name: ADDRESS, origin: ORIGIN }] });
  });

  it('is warned about by cihub pool status and doctor D1', async () => {
    const status = await runCli(['pool', 'status'], { dataDir: hub.dataDir });
    assert.match(status.stdout, new RegExp(`!! peers are dialled through HUB_POOL_PEER_ORIGINS \\(development\\): ${ADDRESS} → ${ORIGIN}`));
    const doctor = await runCli(['pool', 'doctor', '--json'], { dataDir: hub.dataDir });
    const checks = (JSON.parse(doctor.stdout) as { checks: { code: string; verdict: string; found: string }[] }).checks;
    const d1 = checks.find((c) => c.code === 'D1');
    assert.equal(d1?.verdict, 'warn', doctor.stdout);
    assert.match(d1.found, new RegExp(`${ADDRESS} → ${ORIGIN}`));
  });
});
