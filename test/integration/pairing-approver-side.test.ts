/**
 * Who answers a pairing request, on real Hubs. Only the Hub a request was sent to can approve or
 * reject it: the sender's own `cihub pool approve` and `reject` are refused, the approve naming
 * the Hub where it is approved, and the request keeps waiting on both sides with nothing pooled.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { PeerView } from '../../src/peers/peer-view.js';
import { runCli, type HubProcess } from '../helpers/hub-process.js';
import { POOL, fqdn, peers, startUnpairedHubs, status } from './pairing-fixtures.js';

const A = fqdn('hub-a');
const B = fqdn('hub-b');

/** Runs a command that must be refused (exit 1); returns the one line it wrote on stderr. */
async function refused(hub: HubProcess, ...args: string[]): Promise<string> {
  const res = await runCli(args, { dataDir: hub.dataDir });
  assert.equal(res.code, 1, `cihub ${args.join(' ')} should be refused:\n${res.stdout}`);
  assert.equal(res.stdout, '');
  const message = res.stderr.trimEnd();
  assert.equal(message.split('\n').length, 1, `one line on stderr:\n${res.stderr}`);
  return message;
}

async function ok(hub: HubProcess, ...args: string[]): Promise<string> {
  const res = await runCli(args, { dataDir: hub.dataDir });
  assert.equal(res.code, 0, `cihub ${args.join(' ')} failed:\n${res.stderr}`);
  return res.stdout;
}

const shape = (rows: readonly PeerView[]) => rows.map((r) => ({ name: r.nodeFqdn, direction: r.direction, status: r.status }));

describe('the Hub that sent a request cannot answer it', () => {
  let a: HubProcess;
  let b: HubProcess;

  before(async () => {
    [a, b] = await startUnpairedHubs(A, B);
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it('approve and reject on the sender are refused; the request still waits on both Hubs and nothing is pooled', async () => {
    await ok(a, 'pool', 'pair', B, '--yes');

    const approve = await refused(a, 'pool', 'approve', B, '--yes');
    assert.equal(approve, `${B} has no request waiting for this Hub's approval: this Hub sent the request, so an operator on ${B} approves it there.`);
    const reject = await refused(a, 'pool', 'reject', B, '--yes');
    assert.match(
      reject,
      /^hub-b\.tail0\.ts\.net has no request waiting for this Hub's approval, so there is nothing to reject; `cihub pool unpair [0-9a-f]{8}` removes its row\.$/,
    );
    // The Hub's own API refuses as well: the CLI's check is not the only guard.
    const [row] = await peers(a);
    for (const verb of ['approve', 'reject']) assert.equal((await a.api('POST', `${POOL}/peers/${row!.id}/${verb}`)).status, 409, verb);

    assert.deepEqual(shape(await peers(a)), [{ name: B, direction: 'outbound', status: 'pending' }]);
    assert.deepEqual(shape(await peers(b)), [{ name: A, direction: 'inbound', status: 'pending' }]);
    for (const hub of [a, b]) assert.equal((await status(hub)).routingActive, false, 'nothing is pooled before the receiver approves');
  });
});
