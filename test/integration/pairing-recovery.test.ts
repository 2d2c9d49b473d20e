/**
 * What a pairing does when the far Hub goes away, against real Hub processes (docs/peer-protocol.md,
 * "Health poll"). A Hub rebuilt from empty data under the same name answers with a new identity:
 * its peers drop it from routing at the first such answer and pin nothing new until an operator
 * pairs again. A Hub that is only stopped and started again comes back by itself.
 *
 * hub-a polls every 10 s (the minimum), so the three-strike rule takes up to 30 s here; that is
 * the slow test of this file, and every wait is bounded.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { freshDataDir, runCli } from '../helpers/hub-process.js';
import {
  POOL,
  approve,
  eventually,
  fqdn,
  justPolled,
  mintPin,
  nodeUuidOf,
  pairHubs,
  peerNamed,
  reservePorts,
  startNamedHub,
  waitPaired,
  type HubProcess,
} from './pairing-fixtures.js';
import { startTogether } from '../helpers/start-together.js';

const A = fqdn('hub-a');
const B = fqdn('hub-b');
const POLL_SECONDS = 10;
/** The longest cadence the setting takes: A's polls wait this long while B is rebuilt. */
const SLOWEST_POLL_SECONDS = 300;
/** One poll interval plus slack for the 1 s tick and a slow machine. */
const ONE_POLL_MS = POLL_SECONDS * 1000 + 4_000;

describe('recovering a pairing', () => {
  let ports: { a: number; b: number };
  let hubA: HubProcess;
  let hubB: HubProcess;
  const startB = (dataDir?: string) =>
    startNamedHub({ name: B, port: ports.b, origins: { [A]: `http://127.0.0.1:${ports.a}` }, ...(dataDir ? { dataDir } : {}) });

  const setPollSeconds = async (hub: HubProcess, seconds: number) =>
    assert.equal((await hub.api('PATCH', `${POOL}/settings`, { poolHealthPollSeconds: seconds })).status, 200);

  before(async () => {
    ports = await reservePorts(['a', 'b']);
    [hubA, hubB] = await startTogether([startNamedHub({ name: A, port: ports.a, origins: { [B]: `http://127.0.0.1:${ports.b}` } }), startB()]);
    await setPollSeconds(hubA, POLL_SECONDS);
    await pairHubs(hubA, A, hubB, B);
  });
  after(async () => {
    await Promise.all([hubA, hubB].filter(Boolean).map((h) => h.stop()));
  });

  it('10. a peer recreated under the same name is identity_changed after ONE failed probe, and re-pairing recovers it', async () => {
    const pinned = await peerNamed(hubA, B);
    assert.ok(pinned?.fingerprint);
    const oldUuid = await nodeUuidOf(hubB);

    // B's data is lost: same name, same address, a fresh identity. A's next probe must be the
    // first to meet the new B, with none in the restart gap. Restarting within the 10 s to A's
    // next poll was a race a loaded machine could lose (startHubProcess allows a start 60 s), so
    // A's cadence goes to its slowest while B is rebuilt, set just after a poll, and comes back
    // once the new B answers: A polls the next tick that is 10 s past that poll.
    await justPolled(hubA, B, ONE_POLL_MS);
    await setPollSeconds(hubA, SLOWEST_POLL_SECONDS);
    await hubB.stop();
    hubB = await startB(freshDataDir());
    await setPollSeconds(hubA, POLL_SECONDS);
    const changed = await eventually(
      async () => {
        const p = await peerNamed(hubA, B);
        return p?.probeFailure ? p : null;
      },
      "A's next probe of the recreated B",
      ONE_POLL_MS,
    );
    assert.equal(changed.probeFailure!.kind, 'identity_changed');
    assert.equal(changed.consecutiveFailures, 1, 'one probe');
    assert.equal(changed.status, 'unreachable', 'out of routing on the first strike');
    assert.match(changed.probeFailure!.action, /unpair/);
    assert.equal(changed.fingerprint, pinned.fingerprint, 'A did not trust the new key by itself');
    assert.notEqual(await nodeUuidOf(hubB), oldUuid);

    // The stale row has to go first: pairing answers 409 while it exists.
    const blocked = await hubA.api('POST', `${POOL}/peers/pair`, { nodeFqdn: B, pin: (await mintPin(hubB)).pin });
    assert.equal(blocked.status, 409, JSON.stringify(blocked.json));

    // The new B does not accept a notification addressed to the old one, and holds nothing to remove.
    const unpaired = await runCli(['pool', 'unpair', B, '--yes'], { dataDir: hubA.dataDir });
    assert.equal(unpaired.code, 0, unpaired.stderr);
    assert.match(unpaired.stdout, /It was not told: its identity changed, so it no longer holds this pairing and there is nothing to remove on /);
    assert.doesNotMatch(unpaired.stdout, /run `cihub pool unpair/);
    const pin = (await mintPin(hubB)).pin;
    const asked = await hubA.api('POST', `${POOL}/peers/pair`, { nodeFqdn: B, pin });
    assert.equal(asked.status, 200, JSON.stringify(asked.json));
    assert.equal((await approve(hubB, A)).callback, 'confirmed');
    await waitPaired(hubA, B, hubB, A, 'signed');
    const recovered = await peerNamed(hubA, B);
    assert.equal(recovered?.status, 'connected');
    assert.equal(recovered?.probeFailure, null);
    assert.notEqual(recovered?.fingerprint, pinned.fingerprint, 'the new key is pinned only through the re-pairing');
  });

  it('11. a peer switched off is unreachable after three failed polls and rejoins by itself when it is back', async () => {
    const dataDir = hubB.dataDir;
    assert.equal((await peerNamed(hubA, B))?.status, 'connected');
    // Killed, as a power cut would: a Hub stopped with SIGTERM says it is leaving (leaving-notice.test.ts), which skips the three strikes.
    await hubB.stop('SIGKILL');
    const started = Date.now();

    const afterTwo = await eventually(
      async () => {
        const p = await peerNamed(hubA, B);
        return p && p.consecutiveFailures >= 2 ? p : null;
      },
      'two failed polls',
      2 * ONE_POLL_MS,
    );
    assert.equal(afterTwo.status, 'connected', 'two failures are not enough');
    assert.equal(afterTwo.probeFailure?.kind, 'unreachable');

    const down = await eventually(
      async () => {
        const p = await peerNamed(hubA, B);
        return p?.status === 'unreachable' ? p : null;
      },
      'A to mark B unreachable',
      ONE_POLL_MS,
    );
    assert.equal(down.consecutiveFailures, 3, 'on the third failure');
    assert.equal(down.probeFailure?.kind, 'unreachable');
    assert.match(down.probeFailure!.action, /none needed/);
    assert.ok(Date.now() - started >= 2 * POLL_SECONDS * 1000 - 2_000, 'three polls take at least two intervals');

    hubB = await startB(dataDir);
    const back = await eventually(
      async () => {
        const p = await peerNamed(hubA, B);
        return p?.status === 'connected' ? p : null;
      },
      'A to see B again',
      ONE_POLL_MS,
    );
    assert.equal(back.probeFailure, null);
    assert.equal(back.consecutiveFailures, 0);
    assert.equal(back.authMode, 'signed');
    assert.equal((await peerNamed(hubB, A))?.status, 'connected', 'B kept its half of the pairing');
  });
});
