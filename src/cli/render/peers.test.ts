import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { PeerView } from '../../peers/peer-view.js';
import { peerViewFixture } from '../../peers/peer-view.fixture.js';
import { ago, renderPeersTable } from './peers.js';

const NOW = Date.parse('2026-11-30T12:00:00.000Z');

function peer(extra: Partial<PeerView> = {}): PeerView {
  return peerViewFixture({ ...extra });
}

describe('ago', () => {
  const cases: readonly [string | null, string][] = [
    [null, 'never'],
    ['2026-11-30T12:00:05.000Z', 'just now'],
    ['2026-11-30T11:59:48.000Z', '12s ago'],
    ['2026-11-30T11:57:00.000Z', '3m ago'],
    ['2026-11-30T11:00:00.000Z', '1h ago'],
    ['2026-11-28T13:00:00.000Z', '47h ago'],
    ['2026-11-27T12:00:00.000Z', '3d ago'],
    ['not a time', 'unknown'],
  ];
  for (const [iso, text] of cases) it(`${iso} reads ${text}`, () => assert.equal(ago(iso, NOW), text));
});

describe('renderPeersTable', () => {
  const cases: readonly { name: string; peers: PeerView[]; row: RegExp; after?: RegExp }[] = [
    { name: 'a connected signed peer', peers: [peer()], row: /^abcdef12 {2}hub-b\.tail0\.ts\.net {2}out {8}connected {2}signed {2}12s ago {4}none$/m },
    {
      name: 'a peer on bearer auth reads legacy',
      peers: [peer({ direction: 'inbound', authMode: 'bearer' })],
      row: /^abcdef12\s+hub-b\.tail0\.ts\.net\s+in\s+connected\s+bearer \(legacy auth\)\s+12s ago\s+none$/m,
    },
    {
      name: 'a disabled, unreachable peer',
      peers: [peer({ status: 'unreachable', enabled: false, figuresCurrent: false })],
      row: /\s+unreachable, disabled\s+signed\s+12s ago\s+none as last seen$/m,
    },
    {
      name: "a connected peer whose last probe failed: its cap is the last good poll's, and said to be",
      peers: [
        peer({
          maxNumCtx: 16_384,
          consecutiveFailures: 1,
          probeFailure: { kind: 'unreachable', since: '2026-11-30T11:59:55.000Z', action: 'wait' },
          figuresCurrent: false,
        }),
      ],
      row: /\s+connected\s+signed\s+12s ago\s+16384 as last seen$/m,
    },
    {
      name: 'a peer whose identity changed is named so, with what to do under the table',
      peers: [peer({ status: 'unreachable', probeFailure: { kind: 'identity_changed', since: null, action: 're-pair with a new PIN' } })],
      row: /\s+identity changed\s+signed\s+12s ago\s+none$/m,
      after: /^hub-b\.tail0\.ts\.net refuses this Hub \(identity changed\): re-pair with a new PIN\.$/m,
    },
    {
      name: "a peer refusing this Hub's credentials is named so",
      peers: [peer({ status: 'unreachable', probeFailure: { kind: 'unauthorized', since: null, action: 'compare the clocks' } })],
      row: /\s+credentials refused\s+signed\s+12s ago\s+none$/m,
      after: /^hub-b\.tail0\.ts\.net refuses this Hub \(credentials refused\): compare the clocks\.$/m,
    },
    {
      name: 'an incoming request: pending, no auth yet, and the commands to answer it',
      peers: [peer({ direction: 'inbound', status: 'pending', lastSeenAt: null })],
      row: /^abcdef12\s+hub-b\.tail0\.ts\.net\s+in\s+pending\s+-\s+never\s+-$/m,
      after: /^hub-b\.tail0\.ts\.net asks to pair: `cihub pool approve abcdef12` or `cihub pool reject abcdef12`\.$/m,
    },
    {
      name: 'an outgoing request, with how to cancel it',
      peers: [peer({ status: 'pending', lastSeenAt: null })],
      row: /^abcdef12\s+hub-b\.tail0\.ts\.net\s+out\s+pending\s+-\s+never\s+-$/m,
      after: /^Waiting for hub-b\.tail0\.ts\.net to approve this Hub's request \(cancel it with `cihub pool unpair abcdef12`\)\.$/m,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const text = renderPeersTable(c.peers, NOW);
      assert.match(text.split('\n')[0]!, /^ID\s+NAME\s+DIRECTION\s+STATE\s+AUTH\s+LAST SEEN\s+CONTEXT$/);
      assert.match(text, c.row);
      if (c.after) assert.match(text, c.after);
    });
  }

  describe('the CONTEXT column: a number, none and ? never share a cell', () => {
    const rows: readonly { name: string; p: PeerView; cell: string }[] = [
      { name: 'a peer that advertises a cap shows the number', p: peer({ maxNumCtx: 16_384 }), cell: '16384' },
      { name: 'a peer that answered and named no cap shows none', p: peer({ maxNumCtx: null }), cell: 'none' },
      { name: 'a peer not polled yet shows ?', p: peer({ backends: null, acceptingWork: null }), cell: '?' },
    ];
    for (const r of rows) it(r.name, () => assert.equal(renderPeersTable([r.p], NOW).split('\n')[1]!.trim().split(/\s+/).at(-1), r.cell));
  });

  it('never prints a key fingerprint or a full id', () => {
    const p = peer({ direction: 'inbound', status: 'pending' });
    const text = renderPeersTable([p], NOW);
    assert.ok(!text.includes(p.fingerprint!), text);
    assert.ok(!text.includes(p.id), text);
  });

  it('says so when there is nothing to list', () => {
    assert.match(renderPeersTable([], NOW), /^No peers and no pairing requests\./);
  });
});

describe('renderPeersTable: pairings that need both operators', () => {
  it('does not call a half-paired row legacy auth, and prints its fix under the table', () => {
    const half = peerViewFixture({
      direction: 'inbound',
      authMode: 'bearer',
      pairingProblem: { kind: 'half_paired_here', since: '2026-11-30T11:00:00.000Z', action: 'remove both halves: cihub pool unpair hub-b.tail0.ts.net here' },
    });
    const text = renderPeersTable([half], Date.parse('2026-11-30T12:00:00.000Z'));
    assert.ok(!text.includes('legacy auth'), text);
    assert.match(text, /\bnot confirmed\b/);
    assert.ok(
      text.includes('hub-b.tail0.ts.net needs both operators (half paired here): remove both halves: cihub pool unpair hub-b.tail0.ts.net here.'),
      text,
    );
  });

  it('a crossed request is not told to simply wait', () => {
    const crossed = peerViewFixture({
      status: 'pending',
      pairingProblem: { kind: 'crossed_requests', since: '2026-11-30T11:00:00.000Z', action: 'cancel both requests' },
    });
    const text = renderPeersTable([crossed], Date.parse('2026-11-30T12:00:00.000Z'));
    assert.ok(!text.includes('Waiting for'), text);
    assert.ok(text.includes('needs both operators (crossed requests): cancel both requests.'), text);
  });
});
