/**
 * The command-line pairing walkthrough, run the way an operator runs it: two real Hubs on
 * loopback that dial each other through HUB_POOL_PEER_ORIGINS, and every step through `cihub`
 * (with --yes, as in a script). With a PIN and without one; then what the operator reads in
 * `cihub pool status` and `cihub pool peers`, the per-peer switch, unpair, reject, a wrong
 * PIN, an approval nobody confirmed, and identity rotation. Both Hubs start every test with no
 * rows at all, so each test stands on its own.
 */
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { PeerView } from '../../src/peers/peer-view.js';
import type { PoolStatus } from '../../src/status/pool-status.js';
import { eventually, freePort, runCli, startHubProcess, type HubProcess } from '../helpers/hub-process.js';
import { startTogether } from '../helpers/start-together.js';

const A = 'hub-a.tail0.ts.net';
const B = 'hub-b.tail0.ts.net';
const SUFFIX = 'tail0.ts.net';
const re = (s: string): string => s.replaceAll('.', '\\.');
/** Enough for the first health poll, which follows an approval within about a second. */
const POLL_WAIT_MS = 8_000;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(hub: HubProcess, args: readonly string[], env: Record<string, string> = {}): Promise<Run> {
  return runCli(args, { dataDir: hub.dataDir, env });
}

/** Runs a command that must succeed; returns its stdout. */
async function ok(hub: HubProcess, ...args: string[]): Promise<string> {
  const res = await cli(hub, args);
  assert.equal(res.code, 0, `cihub ${args.join(' ')} failed:\n${res.stderr}`);
  assert.equal(res.stderr, '', `cihub ${args.join(' ')} wrote to stderr`);
  return res.stdout;
}

/**
 * Runs a command that must fail with `code` (1: refused or failed; 2: the command line itself was
 * wrong); asserts it said exactly one sentence on stderr and nothing on stdout.
 */
async function failsWith(code: 1 | 2, hub: HubProcess, ...args: string[]): Promise<string> {
  const res = await cli(hub, args);
  assert.equal(res.code, code, `cihub ${args.join(' ')} should fail:\n${res.stdout}`);
  assert.equal(res.stdout, '');
  const message = res.stderr.trimEnd();
  assert.equal(message.split('\n').length, 1, `one line on stderr:\n${res.stderr}`);
  assert.match(message, /^[^.]*(\.[^ .][^.]*)*\.$/, `one sentence on stderr: ${message}`);
  return message;
}

function fails(hub: HubProcess, ...args: string[]): Promise<string> {
  return failsWith(1, hub, ...args);
}

async function peersOf(hub: HubProcess): Promise<PeerView[]> {
  return (JSON.parse(await ok(hub, 'pool', 'peers', '--json')) as { peers: PeerView[] }).peers;
}

async function statusOf(hub: HubProcess): Promise<PoolStatus> {
  const { status, json } = await hub.api<PoolStatus>('GET', '/api/inference/pool/status');
  assert.equal(status, 200);
  return json;
}

/** The data row `cihub pool peers` prints for a name, split into its columns. */
function tableRow(table: string, name: string): string[] {
  const line = table.split('\n').find((l) => l.split(/\s{2,}/)[1] === name);
  assert.ok(line, `cihub pool peers lists ${name}:\n${table}`);
  return line.split(/\s{2,}/);
}

/** The rows as the Hub holds them, read over its API: for checking state, not the CLI's output. */
async function rowsOf(hub: HubProcess): Promise<PeerView[]> {
  const { status, json } = await hub.api<{ peers: PeerView[] }>('GET', '/api/inference/pool/peers');
  assert.equal(status, 200);
  return json.peers;
}

/**
 * Waits until `hub` has polled `peer` (connected, signed, seen), then returns what
 * `cihub pool status` prints, which must show the same. The wait reads the API, so the poll
 * loop costs no CLI process per turn.
 */
async function connectedAndSigned(hub: HubProcess, peer: string): Promise<string> {
  await eventually(
    async () => (await rowsOf(hub)).some((r) => r.nodeFqdn === peer && r.status === 'connected' && r.authMode === 'signed' && r.lastSeenAt !== null),
    `${peer} to be polled, connected and signed`,
    POLL_WAIT_MS,
  );
  const text = await ok(hub, 'pool', 'status');
  assert.match(text, new RegExp(`^ {2}${peer.replaceAll('.', '\\.')}\\s+connected\\s+signed\\s+last seen (just now|\\d+s ago)`, 'm'), text);
  return text;
}

describe('pairing from the command line', () => {
  let a: HubProcess;
  let b: HubProcess;

  before(async () => {
    const [pa, pb] = [await freePort(), await freePort()];
    const origins = `${A}=http://127.0.0.1:${pa},${B}=http://127.0.0.1:${pb}`;
    const env = (name: string) => ({ HUB_NODE_FQDN: name, HUB_TAILNET_SUFFIX: SUFFIX, HUB_POOL_PEER_ORIGINS: origins });
    [a, b] = await startTogether([startHubProcess({ port: pa, env: env(A) }), startHubProcess({ port: pb, env: env(B) })]);
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  beforeEach(async () => {
    assert.deepEqual(await rowsOf(a), [], 'hub-a starts the test with no rows');
    assert.deepEqual(await rowsOf(b), [], 'hub-b starts the test with no rows');
  });
  // Whatever a test left behind (a failed one included) is removed, on both Hubs.
  afterEach(async () => {
    for (const hub of [a, b]) for (const p of await rowsOf(hub)) await hub.api('DELETE', `/api/inference/pool/peers/${p.id}`);
  });

  /** The walkthrough without a PIN, for the tests that need a pairing to start from. */
  async function pairWithoutPin(): Promise<void> {
    await ok(a, 'pool', 'pair', B, '--yes');
    await ok(b, 'pool', 'approve', A, '--yes');
    await connectedAndSigned(a, B);
    await connectedAndSigned(b, A);
  }

  it('pairs with a PIN: pairing-pin on B, the printed pair command on A, peers and approve <id prefix> on B', async () => {
    const bIdentity = (await statusOf(b)).localNode.identity;

    // On hub-b: mint the PIN. It prints the digits, the expiry, hub-b's fingerprint and the command for hub-a.
    const minted = await ok(b, 'pool', 'pairing-pin', '--yes');
    const pin = /Pairing PIN: (\d{6})$/m.exec(minted)?.[1];
    assert.ok(pin, minted);
    assert.match(minted, /until \d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ/);
    const bFingerprint = (await statusOf(b)).localNode.identity?.fingerprint;
    assert.ok(bFingerprint, 'minting a PIN made hub-b an identity');
    assert.ok(bIdentity === null || bIdentity.fingerprint === bFingerprint);
    assert.ok(minted.includes(bFingerprint), `pairing-pin prints this Hub's fingerprint:\n${minted}`);
    const command = minted
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l.startsWith('cihub pool pair '));
    assert.equal(command, `cihub pool pair ${B} --pin ${pin}`);
    assert.match(await ok(b, 'pool', 'status'), /pairing PIN\s+active until /);

    // On hub-a: run exactly the printed command (plus --yes, as a script would).
    const sent = await ok(a, ...command.split(' ').slice(1), '--yes');
    assert.match(sent, new RegExp(`^Pairing request sent to ${B.replaceAll('.', '\\.')}\\.$`, 'm'));
    assert.match(sent, /^PIN verified: /m);
    assert.ok(sent.includes(bFingerprint), 'the pinned key of hub-b is named, to compare');
    assert.ok(sent.includes('cihub pool peers'), sent);
    assert.ok(sent.includes(`cihub pool approve ${A}`), sent);
    assert.match(await ok(b, 'pool', 'status'), /pairing PIN\s+none active/, 'the PIN was used up');

    // On hub-b: the request is the row marked in and pending; approve it by the ID peers prints.
    const table = await ok(b, 'pool', 'peers');
    const [id, , direction, state] = tableRow(table, A);
    assert.match(id!, /^[0-9a-f]{8}$/);
    assert.equal(direction, 'in');
    assert.equal(state, 'pending');
    const aFingerprint = (await statusOf(a)).localNode.identity?.fingerprint;
    assert.ok(aFingerprint);
    assert.ok(!table.includes(aFingerprint), 'peers does not print the key fingerprint');
    assert.equal((await rowsOf(b))[0]?.fingerprint, aFingerprint, "the request carried hub-a's key, which status shows");
    assert.match(await ok(b, 'pool', 'status'), new RegExp(`↳ key fingerprint ${aFingerprint}`));

    const approved = await ok(b, 'pool', 'approve', id!, '--yes');
    assert.match(approved, /confirmed the pairing/);

    // On both: status shows the other connected and signed once the first poll has run.
    const onA = await connectedAndSigned(a, B);
    const onB = await connectedAndSigned(b, A);
    for (const text of [onA, onB]) {
      assert.match(text, /^Hub Pool: routing across the pool$/m);
      assert.match(text, /routing is active: requests can be placed on 1 peer as well as on this Hub/);
      assert.match(text, /HUB_POOL_PEER_ORIGINS \(development\)/);
      assert.match(text, /HUB_NODE_FQDN stand-in/);
      assert.doesNotMatch(text, /Peers refusing this Hub/);
    }
    assert.ok(onA.includes(aFingerprint) && onB.includes(bFingerprint), 'each status names its own fingerprint under This node');

    // The --json rows, on each side.
    const [rowA] = await peersOf(a);
    const [rowB] = await peersOf(b);
    assert.deepEqual(
      {
        name: rowA?.nodeFqdn,
        direction: rowA?.direction,
        status: rowA?.status,
        enabled: rowA?.enabled,
        auth: rowA?.authMode,
        fp: rowA?.fingerprint,
        pin: rowA?.pinVerified,
      },
      { name: B, direction: 'outbound', status: 'connected', enabled: true, auth: 'signed', fp: bFingerprint, pin: true },
    );
    assert.deepEqual(
      {
        name: rowB?.nodeFqdn,
        direction: rowB?.direction,
        status: rowB?.status,
        enabled: rowB?.enabled,
        auth: rowB?.authMode,
        fp: rowB?.fingerprint,
        pin: rowB?.pinVerified,
      },
      { name: A, direction: 'inbound', status: 'connected', enabled: true, auth: 'signed', fp: aFingerprint, pin: true },
    );
    assert.ok(rowA?.lastSeenAt && rowB?.lastSeenAt, 'both have been seen by a health poll');
    assert.equal(rowB?.id.slice(0, 8), id);
  });

  it('pairs without a PIN: pair on A, approve by name on B', async () => {
    const sent = await ok(a, 'pool', 'pair', B, '--yes');
    assert.match(sent, /^No PIN was sent: /m);
    assert.match(sent, /has to approve it/);

    const [request] = await rowsOf(b);
    assert.equal(request?.status, 'pending');
    assert.equal(request?.direction, 'inbound');
    assert.equal(request?.fingerprint, null, 'a request without a PIN carries no key');
    assert.equal(request?.pinVerified, false);
    assert.match(await ok(b, 'pool', 'status'), /↳ no key: this request carried no PIN, so its name is only a claim/);
    const [, , direction, state] = tableRow(await ok(a, 'pool', 'peers'), B);
    assert.deepEqual([direction, state], ['out', 'pending']);

    assert.match(await ok(b, 'pool', 'approve', A, '--yes'), /confirmed the pairing/);
    await connectedAndSigned(a, B);
    await connectedAndSigned(b, A);
    const [rowA] = await rowsOf(a);
    const [rowB] = await rowsOf(b);
    assert.equal(rowA?.status, 'connected');
    assert.equal(rowB?.status, 'connected');
    assert.equal(rowA?.fingerprint, (await statusOf(b)).localNode.identity?.fingerprint, 'keys were exchanged on approval');
    assert.equal(rowB?.fingerprint, (await statusOf(a)).localNode.identity?.fingerprint);
  });

  it('peer-disable keeps the pairing but stops routing to it; peer-enable undoes it', async () => {
    await pairWithoutPin();
    const id = (await rowsOf(a))[0]!.id.slice(0, 8);

    assert.match(await ok(a, 'pool', 'peer-disable', id, '--yes'), new RegExp(`^${B.replaceAll('.', '\\.')} is disabled`));
    const [disabled] = await rowsOf(a);
    assert.equal(disabled?.enabled, false);
    assert.equal(disabled?.status, 'connected', 'the pairing stays');
    assert.deepEqual(tableRow(await ok(a, 'pool', 'peers'), B).slice(3, 4), ['connected, disabled']);
    const statusOff = await statusOf(a);
    assert.equal(statusOff.routingActive, false);
    assert.match(await ok(a, 'pool', 'status'), /connected, disabled/);
    assert.equal((await rowsOf(b)).length, 1, 'hub-b keeps its half');

    assert.match(await ok(a, 'pool', 'peer-enable', B, '--yes'), /is enabled/);
    assert.equal((await rowsOf(a))[0]?.enabled, true);
    assert.equal((await statusOf(a)).routingActive, true);
  });

  it('unpair from one side removes both halves', async () => {
    await pairWithoutPin();
    const out = await ok(b, 'pool', 'unpair', A, '--yes');
    assert.match(out, new RegExp(`^Unpaired ${A.replaceAll('.', '\\.')}; it was told and dropped its half too\\.$`, 'm'));
    assert.deepEqual(await rowsOf(b), []);
    assert.deepEqual(await rowsOf(a), [], "the other side's row is gone too");
    assert.match(await ok(a, 'pool', 'status'), /^Peers: none paired$/m);
  });

  it('unpair on the requester cancels a request sent with a PIN, on both sides', async () => {
    const pin = /Pairing PIN: (\d{6})$/m.exec(await ok(b, 'pool', 'pairing-pin', '--yes'))?.[1];
    assert.ok(pin);
    await ok(a, 'pool', 'pair', B, '--pin', pin, '--yes');
    assert.equal((await rowsOf(b)).length, 1);
    assert.match(
      await ok(a, 'pool', 'unpair', B, '--yes'),
      new RegExp(`^Cancelled the request to ${B.replaceAll('.', '\\.')}; it was told and dropped its half too\\.$`, 'm'),
    );
    assert.deepEqual(await rowsOf(a), []);
    assert.deepEqual(await rowsOf(b), [], 'the PIN pinned a key, so hub-b could be told');
  });

  it('cancelling a request the other Hub set aside gives the unpair there only if it still lists this Hub, which it does not', async () => {
    // hub-b still holds the first request, cancelled here unseen, so it sets the second aside.
    await ok(a, 'pool', 'pair', B, '--yes');
    await ok(a, 'pool', 'unpair', B, '--yes');
    await ok(a, 'pool', 'pair', B, '--yes');
    // Its operator rejects the first: hub-a holds no row it matches, so hub-b keeps nothing.
    await ok(b, 'pool', 'reject', A, '--yes');
    assert.deepEqual(await rowsOf(b), []);
    const cancelled = await ok(a, 'pool', 'unpair', B, '--yes');
    assert.match(
      cancelled,
      new RegExp(
        `If it still lists this Hub \\(\`cihub pool peers\` there\\), run \`cihub pool unpair ${re(A)}\` on it too; if not, nothing is left to remove\\.`,
      ),
    );
    assert.doesNotMatch(cancelled, /as well/);
    const there = await cli(b, ['pool', 'unpair', A, '--yes']);
    assert.notEqual(there.code, 0, 'the unpair an unconditional advice gave would fail there');
  });

  it('a request cancelled without telling, then approved, ends half paired, and approve says what to do', async () => {
    // Without a PIN hub-a holds no credential hub-b accepts, so cancelling cannot reach hub-b.
    await ok(a, 'pool', 'pair', B, '--yes');
    const cancelled = await ok(a, 'pool', 'unpair', B, '--yes');
    // hub-b may have set the request aside unseen, so the advice holds only if it lists hub-a.
    assert.match(
      cancelled,
      new RegExp(
        `^Cancelled the request to ${re(B)} here, but ${re(B)} could not be told\\. If it still lists this Hub \\(\`cihub pool peers\` there\\), run \`cihub pool unpair ${re(A)}\` on it too; if not, nothing is left to remove\\.$`,
        'm',
      ),
    );
    assert.deepEqual(await rowsOf(a), []);
    assert.equal((await rowsOf(b))[0]?.status, 'pending', 'hub-b still holds the request');

    const run = await cli(b, ['pool', 'approve', A, '--yes']);
    assert.equal(run.code, 1, 'half paired is no pairing: the command fails, as doctor does');
    assert.equal(run.stderr.trim(), `${A} is half paired: approved here, but the call back to it failed.`);
    const approved = run.stdout;
    assert.match(approved, /the call back to it failed/);
    assert.match(approved, /Half paired: /);
    assert.ok(approved.includes(`cihub pool unpair ${A}`) && approved.includes(`cihub pool unpair ${B}`), approved);
    assert.equal((await rowsOf(b))[0]?.status, 'connected', 'the approval stands here');
    assert.deepEqual(await rowsOf(a), []);
  });

  it('reject removes the request on both sides', async () => {
    await ok(a, 'pool', 'pair', B, '--yes');
    assert.equal((await rowsOf(a)).length, 1);
    const [id] = tableRow(await ok(b, 'pool', 'peers'), A);
    const rejected = await ok(b, 'pool', 'reject', id!, '--yes');
    assert.match(rejected, /it was told and dropped its request too/);
    assert.doesNotMatch(rejected, /unpair/, 'told, the requester holds nothing: no step to run there');
    assert.deepEqual(await rowsOf(b), []);
    assert.deepEqual(await rowsOf(a), []);
  });

  it('rejecting a request its sender cancelled unseen gives the unpair there only if it still lists this Hub, which it does not', async () => {
    // Without a PIN hub-a cannot tell hub-b it cancelled, and then holds no row hub-b's reject can reach.
    await ok(a, 'pool', 'pair', B, '--yes');
    await ok(a, 'pool', 'unpair', B, '--yes');
    const rejected = await ok(b, 'pool', 'reject', A, '--yes');
    assert.match(
      rejected,
      new RegExp(
        `^Rejected the request from ${re(A)} here, but ${re(A)} could not be told\\. If it still lists this Hub \\(\`cihub pool peers\` there\\), run \`cihub pool unpair ${re(B)}\` on it to drop its side; if not, nothing is left to remove\\.$`,
        'm',
      ),
    );
    assert.deepEqual(await rowsOf(b), []);
    assert.deepEqual(await rowsOf(a), []);
    const there = await cli(a, ['pool', 'unpair', B, '--yes']);
    assert.notEqual(there.code, 0, 'the unpair an unconditional advice gave would fail there');
  });

  it('a PIN that is not six digits is refused as a usage error before anything is sent', async () => {
    for (const pin of ['12345', '1234567', '12345a', '']) {
      const message = await failsWith(2, a, 'pool', 'pair', B, '--pin', pin, '--yes');
      assert.match(message, /^--pin must be exactly the six digits/);
    }
    assert.deepEqual(await rowsOf(a), []);
    assert.deepEqual(await rowsOf(b), []);
  });

  it('a wrong PIN gives one clear sentence, exit 1, and leaves no row on either side; the right one still works', async () => {
    const pin = /Pairing PIN: (\d{6})$/m.exec(await ok(b, 'pool', 'pairing-pin', '--yes'))?.[1];
    assert.ok(pin);
    const wrong = String((Number(pin) + 1) % 1_000_000).padStart(6, '0');
    const message = await fails(a, 'pool', 'pair', B, '--pin', wrong, '--yes');
    assert.match(message, new RegExp(`^${B.replaceAll('.', '\\.')} refused the PIN .*cihub pool pairing-pin`));
    // A PIN lives in the minting Hub's memory: one minted before a restart is refused like a wrong one.
    assert.match(message, /lost when that Hub restarted/);
    assert.deepEqual(await rowsOf(a), []);
    assert.deepEqual(await rowsOf(b), []);
    // The phrase the troubleshooting advice tells an operator to look for in the sending Hub's log.
    const logs = await ok(a, 'logs', '--json');
    const line = logs.split('\n').find((l) => l.includes('refused the pairing PIN'));
    assert.ok(line?.includes(B), logs.slice(-2000));

    assert.match(await ok(a, 'pool', 'pair', B, '--pin', pin, '--yes'), /^PIN verified: /m);
    assert.equal((await rowsOf(b)).length, 1);
  });

  it('a second request to a name this Hub already holds is refused in one sentence naming unpair', async () => {
    await ok(a, 'pool', 'pair', B, '--yes');
    const message = await fails(a, 'pool', 'pair', B, '--yes');
    assert.match(message, new RegExp(`^Pairing failed: .*cihub pool unpair ${B.replaceAll('.', '\\.')}`));
    assert.equal((await rowsOf(a)).length, 1);
    assert.equal((await rowsOf(b)).length, 1);
  });

  it('approve without --yes and no terminal refuses and changes nothing', async () => {
    await ok(a, 'pool', 'pair', B, '--yes');
    const before = await rowsOf(b);
    const message = await fails(b, 'pool', 'approve', A);
    assert.match(message, /^Nothing was changed: .*--yes/);
    assert.deepEqual(await rowsOf(b), before, 'the request still waits, untouched');
    assert.equal((await rowsOf(a))[0]?.status, 'pending', 'hub-a still waits');

    // CI_HUB_ASSUME_YES=1 stands in for --yes.
    const res = await cli(b, ['pool', 'approve', A], { CI_HUB_ASSUME_YES: '1' });
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /confirmed the pairing/);
  });

  it('rotate-identity gives a new fingerprint, tells the peer, and leaves no peers on either side', async () => {
    await pairWithoutPin();
    const old = (await statusOf(a)).localNode.identity;
    assert.ok(old?.fingerprint);

    const out = await ok(a, 'pool', 'rotate-identity', '--yes');
    const next = (await statusOf(a)).localNode.identity;
    assert.ok(next?.fingerprint);
    assert.notEqual(next.fingerprint, old.fingerprint);
    assert.equal(next.nodeUuid, old.nodeUuid, 'the node UUID is kept');
    assert.match(out, new RegExp(`^New key fingerprint: ${next.fingerprint} `, 'm'));
    assert.match(out, new RegExp(`Removed the pairing: ${B.replaceAll('.', '\\.')}\\.`));
    assert.doesNotMatch(out, /Could not tell/);
    assert.deepEqual(await rowsOf(a), []);
    assert.deepEqual(await rowsOf(b), [], 'hub-b was told and dropped its half');

    // The new key pairs like the old one did.
    await pairWithoutPin();
    assert.equal((await rowsOf(b))[0]?.fingerprint, next.fingerprint);
  });
});
