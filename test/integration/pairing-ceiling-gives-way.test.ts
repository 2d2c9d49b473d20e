/**
 * The ceiling on pairing requests without a PIN (15 waiting at once, the other 5 of the 20 kept for PIN holders) holds only while the operator
 * leaves them unanswered, on a real Hub: approving or rejecting one makes room for the next.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { MAX_PENDING_INBOUND } from '../../src/pairing/pairing-service.js';
import { freePort, type HubProcess } from '../helpers/hub-process.js';
import { POOL, fqdn, peers, send, startNamedHub } from './pairing-fixtures.js';

describe('the pending ceiling gives way as the operator answers', () => {
  const RECEIVER = fqdn('hub-r');
  const names = Array.from({ length: MAX_PENDING_INBOUND + 2 }, (_, i) => fqdn(`asker-${String(i + 1).padStart(2, '0')}`));
  let hub: HubProcess;

  before(async () => {
    // Every asker's name dials a port nothing listens on, so the approval's call back and the
    // rejection's notice fail at once instead of waiting on a name that does not resolve.
    const closed = `http://127.0.0.1:${await freePort()}`;
    const port = await freePort();
    hub = await startNamedHub({
      name: RECEIVER,
      port,
      origins: { [RECEIVER]: `http://127.0.0.1:${port}`, ...Object.fromEntries(names.map((n) => [n, closed])) },
    });
  });
  after(async () => {
    await hub?.stop();
  });

  let source = 0;
  /** A request without a PIN from `from`, each from its own loopback address so no per-source limit decides it. */
  const ask = (from: string) =>
    send(hub.url, 'POST', `${POOL}/pair/request`, {
      body: { fromNodeFqdn: from, token: randomBytes(32).toString('base64url') },
      localAddress: `127.0.0.${10 + ++source}`,
    });
  const idOf = async (name: string) => (await peers(hub)).find((p) => p.nodeFqdn === name)!.id;

  it(`a request refused at ${MAX_PENDING_INBOUND} is taken once one is rejected, and the next once one is approved`, async () => {
    for (const from of names.slice(0, MAX_PENDING_INBOUND)) assert.equal((await ask(from)).status, 200, from);
    const full = await ask(names[MAX_PENDING_INBOUND]!);
    assert.equal(full.status, 429, full.text);
    assert.equal(full.json.error.code, 'HUB_ERR_PAIR_PENDING_FULL');

    const rejected = await hub.api('POST', `${POOL}/peers/${await idOf(names[0]!)}/reject`);
    assert.equal(rejected.status, 200, JSON.stringify(rejected.json));
    assert.equal((await ask(names[MAX_PENDING_INBOUND]!)).status, 200, 'rejecting one made room');
    assert.equal((await ask(names[MAX_PENDING_INBOUND + 1]!)).status, 429, 'and only for one');

    const approved = await hub.api('POST', `${POOL}/peers/${await idOf(names[1]!)}/approve`);
    assert.equal(approved.status, 200, JSON.stringify(approved.json));
    assert.equal((await ask(names[MAX_PENDING_INBOUND + 1]!)).status, 200, 'an approved request no longer waits, so it made room too');

    const rows = await peers(hub);
    assert.equal(rows.filter((r) => r.status === 'pending').length, MAX_PENDING_INBOUND);
    assert.equal(rows.find((r) => r.nodeFqdn === names[1])?.status, 'connected', 'the approval stands though the call back failed');
  });
});
