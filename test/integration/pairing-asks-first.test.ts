/**
 * `cihub pool pair` and `cihub pool reject` ask before they change anything, as approve does
 * (pairing-cli.test.ts): on real Hubs, with no terminal to ask on and no --yes, each is refused and
 * changes nothing on either Hub; CI_HUB_ASSUME_YES=1 stands in for --yes.
 */
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { PeerView } from '../../src/peers/peer-view.js';
import { runCli, type HubProcess } from '../helpers/hub-process.js';
import { POOL, fqdn, peers, startUnpairedHubs } from './pairing-fixtures.js';

const A = fqdn('hub-a');
const B = fqdn('hub-b');

const shape = (rows: readonly PeerView[]) => rows.map((r) => `${r.nodeFqdn} ${r.direction} ${r.status}`);

describe('pair and reject ask first', () => {
  let a: HubProcess;
  let b: HubProcess;

  before(async () => {
    [a, b] = await startUnpairedHubs(A, B);
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });
  // Each test starts from no rows on either Hub, whatever the one before left.
  afterEach(async () => {
    for (const hub of [a, b]) for (const p of await peers(hub)) await hub.api('DELETE', `${POOL}/peers/${p.id}`);
  });

  /** Runs a change with no --yes; the CLI's stdin is not a terminal, so it cannot ask. */
  async function unconfirmed(hub: HubProcess, args: string[]): Promise<void> {
    const res = await runCli(args, { dataDir: hub.dataDir });
    assert.equal(res.code, 1, `cihub ${args.join(' ')} went ahead:\n${res.stdout}`);
    assert.equal(res.stdout, '');
    assert.match(res.stderr, /^Nothing was changed: .*--yes.*CI_HUB_ASSUME_YES=1/);
  }

  async function assumed(hub: HubProcess, args: string[]): Promise<void> {
    const res = await runCli(args, { dataDir: hub.dataDir, env: { CI_HUB_ASSUME_YES: '1' } });
    assert.equal(res.code, 0, res.stderr);
  }

  it('pair: refused unconfirmed with nothing sent, then sent under CI_HUB_ASSUME_YES=1', async () => {
    await unconfirmed(a, ['pool', 'pair', B]);
    assert.deepEqual(shape(await peers(a)), []);
    assert.deepEqual(shape(await peers(b)), [], 'no request reached hub-b');

    await assumed(a, ['pool', 'pair', B]);
    assert.deepEqual(shape(await peers(a)), [`${B} outbound pending`]);
    assert.deepEqual(shape(await peers(b)), [`${A} inbound pending`]);
  });

  it('reject: refused unconfirmed with the request still waiting on both, then rejected under CI_HUB_ASSUME_YES=1', async () => {
    await assumed(a, ['pool', 'pair', B]);
    await unconfirmed(b, ['pool', 'reject', A]);
    assert.deepEqual(shape(await peers(b)), [`${A} inbound pending`]);
    assert.deepEqual(shape(await peers(a)), [`${B} outbound pending`]);

    await assumed(b, ['pool', 'reject', A]);
    assert.deepEqual(shape(await peers(b)), []);
    assert.deepEqual(shape(await peers(a)), [], 'hub-a was told and dropped its request');
  });
});
