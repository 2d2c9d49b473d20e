import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { PeerView } from '../../peers/peer-view.js';
import { CliError } from '../hub-client.js';
import { approveQuestion, findPeer, rejectQuestion, rejectUntold, rotationNotReached } from './peers.js';

const row = (id: string, nodeFqdn: string): PeerView => ({ id, nodeFqdn }) as Partial<PeerView> as PeerView;
const PEERS = [row('abcd1234-0000-4000-8000-000000000001', 'hub-b.tail0.ts.net'), row('abcd9999-0000-4000-8000-000000000002', 'hub-c.tail0.ts.net')];

describe('findPeer: the rules the Hub resolves a <ref> by', () => {
  const found: readonly [string, string][] = [
    ['abcd1234-0000-4000-8000-000000000001', 'hub-b.tail0.ts.net'],
    ['hub-c.tail0.ts.net', 'hub-c.tail0.ts.net'],
    ['HUB-C.tail0.ts.net.', 'hub-c.tail0.ts.net'],
    ['abcd1234', 'hub-b.tail0.ts.net'],
    ['ABCD9', 'hub-c.tail0.ts.net'],
  ];
  for (const [ref, name] of found) it(`${ref} finds ${name}`, () => assert.equal(findPeer(PEERS, ref).nodeFqdn, name));

  const refused: readonly [string, RegExp][] = [
    ['abcd', /matches 2 peers \(hub-b\.tail0\.ts\.net, hub-c\.tail0\.ts\.net\); give more of the id/],
    ['abc', /No peer or pairing request here matches abc/],
    ['hub-d.tail0.ts.net', /No peer or pairing request here matches hub-d/],
  ];
  for (const [ref, message] of refused) {
    it(`${ref} is refused with one sentence`, () => {
      assert.throws(
        () => findPeer(PEERS, ref),
        (err: unknown) => err instanceof CliError && message.test(err.message) && err.message.split('. ').length === 1,
      );
    });
  }
});

describe('approveQuestion', () => {
  it('names the requester and its key fingerprint', () => {
    const q = approveQuestion({ nodeFqdn: 'hub-a.tail0.ts.net', fingerprint: '3f1c:9a0b:0000:1111:2222:3333:4444:5555' });
    assert.match(q, /^Approve the pairing request from hub-a\.tail0\.ts\.net\? It has key fingerprint 3f1c:9a0b:0000:1111:2222:3333:4444:5555 /);
  });
  it('says a request without a PIN has no key, so its name is only a claim', () => {
    const q = approveQuestion({ nodeFqdn: 'hub-a.tail0.ts.net', fingerprint: null });
    assert.match(q, /hub-a\.tail0\.ts\.net\? It has no key: this request carried no PIN, so its name is only a claim\./);
  });
});

describe('rejectQuestion', () => {
  it('promises to tell the requester only if it can be reached', () =>
    assert.equal(
      rejectQuestion('hub-a.tail0.ts.net'),
      'Reject the pairing request from hub-a.tail0.ts.net? It is removed here, and hub-a.tail0.ts.net is told if it can be reached.',
    ));
});

describe('rejectUntold: what reject says when the requester could not be told', () => {
  const said = rejectUntold('hub-a.tail0.ts.net', 'hub-b.tail0.ts.net');
  it('says the request is gone here and the requester was not told', () =>
    assert.match(said, /^Rejected the request from hub-a\.tail0\.ts\.net here, but hub-a\.tail0\.ts\.net could not be told\. /));
  it('gives the unpair to run there only if the requester still lists this Hub, since it may have cancelled unseen', () =>
    assert.match(
      said,
      / If it still lists this Hub \(`cihub pool peers` there\), run `cihub pool unpair hub-b\.tail0\.ts\.net` on it to drop its side; if not, nothing is left to remove\.$/,
    ));
});

describe('rotationNotReached: what rotation says of peers it could not tell', () => {
  it('gives the unpair to run on one only if it still lists this Hub', () =>
    assert.equal(
      rotationNotReached(['hub-b.tail0.ts.net'], 'hub-a.tail0.ts.net'),
      'Could not tell hub-b.tail0.ts.net: on it, if it still lists this Hub (`cihub pool peers` there), run `cihub pool unpair hub-a.tail0.ts.net` before pairing again.',
    ));
  it('gives it for each of several that still lists this Hub', () =>
    assert.match(
      rotationNotReached(['hub-b.tail0.ts.net', 'hub-c.tail0.ts.net'], 'hub-a.tail0.ts.net'),
      /^Could not tell hub-b\.tail0\.ts\.net, hub-c\.tail0\.ts\.net: on each that still lists this Hub \(/,
    ));
});
