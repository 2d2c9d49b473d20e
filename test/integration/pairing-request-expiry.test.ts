/**
 * A request nobody answers for 24 hours is dropped by both running Hubs, the one asked and the
 * one asking (the length itself is pinned in src/pairing/request-expiry.test.ts). A real day
 * cannot pass in a test, so each Hub's row is aged in its database instead: its expiry is set to
 * a moment ago, as 24 hours without an answer leave it, and the Hubs' own sweeps do the rest.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { DATABASE_FILE_NAME } from '../../src/store/database.js';
import { eventually, runCli, type HubProcess } from '../helpers/hub-process.js';
import { fqdn, peers, startUnpairedHubs } from './pairing-fixtures.js';

const A = fqdn('hub-a');
const B = fqdn('hub-b');
/** The sweep runs once a minute (peers/health-poller.ts): a bound, ended by the rows going. */
const SWEEP_BOUND_MS = 2 * 60_000;

function ageRequest(hub: HubProcess, name: string): void {
  const db = new Database(join(hub.dataDir, DATABASE_FILE_NAME));
  try {
    const aged = db
      .prepare("UPDATE hub_pool_peer SET expires_at = ? WHERE node_fqdn = ? AND status = 'pending'")
      .run(new Date(Date.now() - 1_000).toISOString(), name);
    assert.equal(aged.changes, 1, `${name} waits on ${hub.url}`);
  } finally {
    db.close();
  }
}

describe('a pairing request nobody answers for 24 hours', () => {
  let a: HubProcess;
  let b: HubProcess;

  before(async () => {
    [a, b] = await startUnpairedHubs(A, B);
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it('is dropped by both Hubs, leaving nothing to approve and nothing waiting', async () => {
    const sent = await runCli(['pool', 'pair', B, '--yes'], { dataDir: a.dataDir });
    assert.equal(sent.code, 0, sent.stderr);
    const expiries = async (hub: HubProcess) => (await peers(hub)).map((p) => p.expiresAt);
    for (const hub of [a, b]) {
      const [expiresAt] = await expiries(hub);
      assert.ok(expiresAt !== null && expiresAt !== undefined, 'a waiting request carries its expiry');
    }

    ageRequest(b, A);
    ageRequest(a, B);
    await eventually(async () => (await peers(a)).length === 0 && (await peers(b)).length === 0, 'both Hubs to drop the expired request', SWEEP_BOUND_MS);
    const approve = await runCli(['pool', 'approve', A, '--yes'], { dataDir: b.dataDir });
    assert.equal(approve.code, 1, 'there is no request left to approve');
  });
});
