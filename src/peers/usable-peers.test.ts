/**
 * Issue 10 audit: a peer whose snapshot is older than three health polls ranks mid-load and stays
 * a candidate (spec, "Ranking": an unmeasured node must never be mistaken for an idle one). Until
 * this, such a peer was dropped from placement and from the listings outright. And a model one
 * engine of a peer withholds is no offer of that engine, whatever another engine there serves.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readCapabilities, type PeerCapabilities } from './capabilities.js';
import type { PeerHealth } from './health-poller.js';
import { usablePeers } from './usable-peers.js';
import { peerCandidates } from '../placement/candidates.js';
import { UNKNOWN_PEER_LOAD, UNKNOWN_PRESSURE } from '../placement/peer-load.js';
import { peerModels } from '../proxy/pool-offers.js';

const POLL_SECONDS = 30;
const NOW_MS = 1_000_000_000;
/** Written out, not SNAPSHOT_TRUST_POLLS: the three polls are the operator-facing rule, so a changed constant must fail here. */
const TRUSTED_MS = 3 * POLL_SECONDS * 1000;

const caps = (extra: Partial<PeerCapabilities> = {}): PeerCapabilities => ({
  nodeUuid: null,
  hardwareTier: 'high-end',
  backends: extra.backends ?? [{ kind: 'ollama', models: ['qwen3:8b'] }],
  servable: extra.servable ?? extra.backends ?? [{ kind: 'ollama', models: ['qwen3:8b'] }],
  inFlightRequests: 0,
  acceptingWork: true,
  gpuPressure: 0,
  maxPromptTokens: null,
  maxNumCtx: null,
  ollamaSlots: null,
  containers: null,
  unservableModels: null,
  modelDetails: null,
  throughput: null,
  ...extra,
});

function peersAt(snapshotAgeMs: number, capabilities: PeerCapabilities, forwarded = 0, pollSeconds = POLL_SECONDS) {
  const health: PeerHealth = {
    probeFailure: null,
    probeFailureSince: null,
    probeFailureGap: null,
    capabilities,
    capabilitiesAtMs: NOW_MS - snapshotAgeMs,
    forwardedAtSnapshot: 0,
    leftAt: null,
  };
  return usablePeers({
    store: { list: () => [{ id: 'p1', nodeFqdn: 'hub-b.tail0.ts.net', status: 'connected', enabled: true }] },
    health: () => health,
    forwarded: () => forwarded,
    origins: new Map(),
    nowMs: NOW_MS,
    pollSeconds,
  });
}

describe('a peer whose snapshot is older than three polls', () => {
  it('stays a candidate and in the listings, ranked mid-load rather than at the idle load it last reported', () => {
    const [peer] = peersAt(TRUSTED_MS + 1, caps({ inFlightRequests: 0, gpuPressure: 0 }));
    assert.ok(peer, 'still usable');
    assert.equal(peer.snapshotStale, true);
    assert.equal(peer.queueDepth, UNKNOWN_PEER_LOAD, 'its reported 0 in flight is discarded');
    assert.equal(peer.pressure, UNKNOWN_PRESSURE, 'its reported band 0 is discarded');
    assert.deepEqual(
      peerCandidates([peer], 'qwen3:8b', 'ollama').map((c) => [c.node, c.queueDepth]),
      [['hub-b.tail0.ts.net', UNKNOWN_PEER_LOAD]],
    );
    assert.deepEqual([...(peerModels([peer], 'ollama').get('hub-b.tail0.ts.net') ?? [])], ['qwen3:8b']);
  });

  it("counts this Hub's live forwards on top of the mid-load figure, never a stale busy one", () => {
    const [peer] = peersAt(TRUSTED_MS + 1, caps({ inFlightRequests: 9 }), 1);
    assert.equal(peer?.queueDepth, 1 + UNKNOWN_PEER_LOAD);
  });

  it('reads a snapshot exactly three polls old as it was reported', () => {
    const [peer] = peersAt(TRUSTED_MS, caps({ inFlightRequests: 0, gpuPressure: 0 }));
    assert.deepEqual([peer?.snapshotStale, peer?.loadReported, peer?.queueDepth, peer?.pressure], [false, true, 0, 0]);
  });

  it('says the load was not reported when the stand-in is used: a stale snapshot, or a fresh one without an in-flight count', () => {
    assert.deepEqual(
      [peersAt(TRUSTED_MS + 1, caps({ inFlightRequests: 0 }))[0]?.loadReported, peersAt(0, caps({ inFlightRequests: null }))[0]?.loadReported],
      [false, false],
    );
    assert.equal(peersAt(0, caps({ inFlightRequests: null }))[0]?.queueDepth, UNKNOWN_PEER_LOAD);
  });

  it('scales with the poll cadence: at 300 s a 15-minute-old snapshot is trusted, one a millisecond older is not', () => {
    // Slowing the cadence must not silently mark every peer stale (poolHealthPollSeconds).
    assert.equal(peersAt(900_000, caps(), 0, 300)[0]?.snapshotStale, false);
    assert.equal(peersAt(900_001, caps(), 0, 300)[0]?.snapshotStale, true);
  });

  it('distrusts a snapshot taken before the wall clock was set back (stamped ahead of now) until the next poll, rather than for as long as the step', () => {
    const [peer] = peersAt(-2 * 60 * 60_000, caps({ inFlightRequests: 0, gpuPressure: 0 }));
    assert.deepEqual([peer?.snapshotStale, peer?.queueDepth, peer?.pressure], [true, UNKNOWN_PEER_LOAD, UNKNOWN_PRESSURE]);
  });

  it('still leaves out a peer whose last snapshot said it takes no work', () => {
    assert.deepEqual(peersAt(TRUSTED_MS + 1, caps({ acceptingWork: false })), []);
  });
});

describe('which peers placement may send work to', () => {
  type Row = { readonly id: string; readonly nodeFqdn: string; readonly status: 'pending' | 'connected' | 'unreachable'; readonly enabled: boolean };
  const row = (id: string, extra: Partial<Row> = {}): Row => ({ id, nodeFqdn: `${id}.tail0.ts.net`, status: 'connected', enabled: true, ...extra });
  const polled = (capabilities: PeerCapabilities | null, capabilitiesAtMs: number | null = NOW_MS): PeerHealth => ({
    probeFailure: null,
    probeFailureSince: null,
    probeFailureGap: null,
    capabilities,
    capabilitiesAtMs,
    forwardedAtSnapshot: 0,
    leftAt: null,
  });
  const cases: readonly { name: string; row: Row; health: PeerHealth; usable: boolean }[] = [
    { name: 'a connected, enabled peer with a snapshot that takes work', row: row('a'), health: polled(caps()), usable: true },
    { name: 'a peer still pending', row: row('b', { status: 'pending' }), health: polled(caps()), usable: false },
    { name: 'an unreachable peer', row: row('c', { status: 'unreachable' }), health: polled(caps()), usable: false },
    { name: 'a peer disabled here (the per-peer kill switch)', row: row('d', { enabled: false }), health: polled(caps()), usable: false },
    { name: 'a peer never polled yet (no snapshot)', row: row('e'), health: polled(null, null), usable: false },
    { name: 'a peer with capabilities but no snapshot time', row: row('f'), health: polled(caps(), null), usable: false },
  ];
  for (const c of cases) {
    it(`${c.usable ? 'takes' : 'leaves out'} ${c.name}`, () => {
      const got = usablePeers({
        store: { list: () => [c.row] },
        health: () => c.health,
        forwarded: () => 0,
        origins: new Map(),
        nowMs: NOW_MS,
        pollSeconds: POLL_SECONDS,
      });
      assert.deepEqual(
        got.map((p) => p.peerId),
        c.usable ? [c.row.id] : [],
      );
    });
  }

  it("carries what the snapshot says, with an absent list read as empty and the peer's HTTPS origin", () => {
    const [peer] = peersAt(0, caps({ maxNumCtx: 8192, maxPromptTokens: 6000, hardwareTier: 'mid-range' }));
    assert.ok(peer);
    assert.deepEqual(peer.unservableModels, []);
    assert.equal(peer.modelDetails.size, 0);
    assert.equal(peer.origin, 'https://hub-b.tail0.ts.net');
    assert.deepEqual([peer.maxNumCtx, peer.maxPromptTokens, peer.hardwareTier, peer.snapshotAtMs], [8192, 6000, 'mid-range', NOW_MS]);
    const [listed] = peersAt(0, caps({ unservableModels: ['big:70b'] }));
    assert.deepEqual(listed?.unservableModels, ['big:70b']);
  });
});

describe('a peer engine that withholds a model another engine there lists', () => {
  // As a peer publishes it: its Ollama withholds split:8b, its vLLM lists it and serves it.
  const wire = {
    nodeUuid: null,
    hardwareTier: 'high-end',
    backends: [
      { kind: 'ollama', models: ['split:8b', 'other:1b'], unservable: ['split:8b'] },
      { kind: 'vllm', models: ['split:8b'] },
    ],
    inFlightRequests: 0,
    acceptingWork: true,
  };
  const cases = [
    { dialect: 'ollama', candidate: false, offered: ['other:1b'] },
    { dialect: 'openai', candidate: true, offered: ['split:8b', 'other:1b'] },
  ] as const;
  for (const c of cases) {
    it(`${c.candidate ? 'is' : 'is no'} candidate for it in the ${c.dialect} dialect, and offers ${c.offered.join(' and ')}`, () => {
      const [peer] = peersAt(0, readCapabilities(wire)!);
      assert.ok(peer);
      assert.equal(peerCandidates([peer], 'split:8b', c.dialect).length, c.candidate ? 1 : 0);
      assert.deepEqual([...(peerModels([peer], c.dialect).get('hub-b.tail0.ts.net') ?? [])].sort(), [...c.offered].sort());
    });
  }
});
