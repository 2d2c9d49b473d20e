import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { PeerRow } from '../store/peers.js';
import { peerRowFixture } from '../store/peer-row.fixture.js';
import { pairingProblem } from './pairing-problem.js';
import { leavingRecipients } from './leaving-notice.js';

const ME = 'hub-a.tail0.ts.net';
const PEER = 'hub-b.tail0.ts.net';
const T = '2026-11-30T11:00:00.000Z';
const KEY = 'A'.repeat(43);
const NO_NOTES = { approvedThereAt: null, confirming: false };

const row = (extra: Partial<PeerRow>): PeerRow => peerRowFixture({ nodeFqdn: PEER, createdAt: T, ...extra });

describe('pairingProblem: which pairing states need both operators', () => {
  const table: readonly { name: string; row: Partial<PeerRow>; approvedThere?: string; confirming?: boolean; kind: string | null }[] = [
    {
      name: 'an approval whose confirmation failed, on the approver',
      row: { direction: 'inbound', status: 'connected', confirmFailedAt: T },
      kind: 'half_paired_here',
    },
    {
      name: 'an approval whose call back is still out (marked before the call, so a crash leaves it marked)',
      row: { direction: 'inbound', status: 'connected', confirmFailedAt: T },
      confirming: true,
      kind: null,
    },
    { name: 'the same once marked unreachable', row: { direction: 'inbound', status: 'unreachable', confirmFailedAt: T }, kind: 'half_paired_here' },
    { name: 'a request this Hub sent, while the peer calls as paired', row: { status: 'pending' }, approvedThere: T, kind: 'half_paired_there' },
    { name: 'a request this Hub sent whose peer asked too', row: { status: 'pending', crossedAt: T }, kind: 'crossed_requests' },
    {
      name: 'half paired wins over crossed on the requester (the peer approved after all)',
      row: { status: 'pending', crossedAt: T },
      approvedThere: T,
      kind: 'half_paired_there',
    },
    { name: 'a healthy pairing', row: {}, kind: null },
    { name: 'a request waiting here for approval', row: { direction: 'inbound', status: 'pending' }, kind: null },
    { name: 'a crossing mark on a row that has since connected', row: { status: 'connected', crossedAt: T }, kind: null },
  ];
  for (const c of table) {
    it(`${c.name}: ${c.kind ?? 'none'}`, () =>
      assert.equal(pairingProblem(row(c.row), ME, { approvedThereAt: c.approvedThere ?? null, confirming: c.confirming ?? false })?.kind ?? null, c.kind));
  }

  it('names the command for each Hub, with both names', () => {
    const action = pairingProblem(row({ direction: 'inbound', confirmFailedAt: T }), ME, NO_NOTES)!.action;
    assert.ok(action.includes(`cihub pool unpair ${PEER} here`) && action.includes(`cihub pool unpair ${ME} on ${PEER}`), action);
    assert.ok(pairingProblem(row({ status: 'pending', crossedAt: T }), ME, NO_NOTES)!.action.includes('pair again from one Hub only'));
  });
});

describe('leavingRecipients: who is told a Hub is leaving', () => {
  it('every pairing this Hub signs to; bearer pairings are skipped, requests left out', () => {
    const signed = row({ id: 's', nodeFqdn: 'signed.tail0.ts.net', peerNodeUuid: 'u', peerPublicKey: KEY });
    const bearer = row({ id: 'b', nodeFqdn: 'bearer.tail0.ts.net', presentTokenSealed: 'sealed' });
    const waiting = row({ id: 'w', nodeFqdn: 'waiting.tail0.ts.net', status: 'pending', peerNodeUuid: 'v', peerPublicKey: KEY });
    const graced = row({ id: 'g', nodeFqdn: 'grace.tail0.ts.net', peerNodeUuid: 'x', peerPublicKey: KEY, presentTokenSealed: 'sealed', bearerGraceUntil: T });
    const got = leavingRecipients([signed, bearer, waiting, graced], false);
    assert.deepEqual({ send: got.send.map((r) => r.id), skipped: got.skipped }, { send: ['s'], skipped: ['bearer.tail0.ts.net', 'grace.tail0.ts.net'] });
    assert.deepEqual(
      leavingRecipients([graced], true).send.map((r) => r.id),
      ['g'],
      'signed-only signs to a graced row at once',
    );
  });
});
