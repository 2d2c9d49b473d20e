/**
 * A new request for a name whose earlier request has just expired. The sweep that drops expired
 * requests runs once a minute on each Hub, on its own tick, so the Hub that sent a request can
 * drop it and send another while the Hub asked still lists the old one. That old row used to
 * stand in for the new request: one without a PIN was answered "received" and set aside, to be
 * swept a moment later, and the requester waited a day for nothing. On the sending side, the
 * expired row refused a new request as one still waiting.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { heldPairing, PEER } from './held-peer-calls.fixture.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const token = () => randomBytes(32).toString('base64url');

describe('a request sent again once the first has expired', () => {
  it('is taken as a new request by the Hub asked, even before its sweep has dropped the old one', async () => {
    const { pairing, store, clock } = heldPairing();
    await pairing.receiveRequest({ body: { fromNodeFqdn: PEER, token: token() }, sourceIp: null });
    const first = store.byFqdn(PEER)!;
    clock.advance(DAY_MS);

    assert.deepEqual(await pairing.receiveRequest({ body: { fromNodeFqdn: PEER, token: token() }, sourceIp: null }), { received: true });
    const second = store.byFqdn(PEER);
    assert.notEqual(second?.id, first.id, 'a new row, not the expired one');
    assert.deepEqual([second?.direction, second?.status, second?.expiresAt], ['inbound', 'pending', new Date(clock.nowMs() + DAY_MS).toISOString()]);
  });

  it('can be sent by the Hub asking, even before its sweep has dropped the old one', async () => {
    const { pairing, store, clock, nextCall, outboundRequest } = heldPairing();
    const first = outboundRequest();
    clock.advance(DAY_MS);

    const asking = pairing.requestPairing(PEER, undefined);
    const outcome = await Promise.race([
      nextCall('/pair/request').then(() => 'sent'),
      asking.then(
        () => 'answered',
        (err: unknown) => err,
      ),
    ]);
    assert.equal(outcome, 'sent', String(outcome));
    (await nextCall('/pair/request')).answer({ ok: true, status: 200, headers: {}, json: { received: true }, auth: 'none' } as never);
    const { peer } = await asking;
    assert.notEqual(peer.id, first.id);
    assert.equal(store.get(first.id), null);
  });
});
