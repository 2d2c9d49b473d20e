import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { peerQueueDepth, UNKNOWN_PEER_LOAD } from './peer-load.js';

describe("peerQueueDepth: this Hub's forwards counted live, plus what the peer's snapshot counted beyond them", () => {
  const rows: readonly { name: string; forwardedNow: number; reported: number | null; forwardedAtSnapshot: number; depth: number }[] = [
    { name: 'an idle peer that says so, with nothing forwarded', forwardedNow: 0, reported: 0, forwardedAtSnapshot: 0, depth: 0 },
    { name: 'a peer that reported no load ranks mid-load, never idle', forwardedNow: 0, reported: null, forwardedAtSnapshot: 0, depth: UNKNOWN_PEER_LOAD },
    { name: 'and its unknown load adds to the forwards in flight', forwardedNow: 1, reported: null, forwardedAtSnapshot: 1, depth: 1 + UNKNOWN_PEER_LOAD },
    { name: "its own apps' work and other Hubs' add to ours", forwardedNow: 1, reported: 4, forwardedAtSnapshot: 1, depth: 4 },
    { name: 'our forwards the snapshot also counted are not counted twice', forwardedNow: 2, reported: 2, forwardedAtSnapshot: 2, depth: 2 },
    { name: 'a forward finished since the snapshot stops counting at once', forwardedNow: 1, reported: 3, forwardedAtSnapshot: 2, depth: 2 },
    { name: 'a forward sent since the snapshot counts at once', forwardedNow: 3, reported: 2, forwardedAtSnapshot: 2, depth: 3 },
    { name: 'a snapshot below our forwards of that moment never takes ours away', forwardedNow: 2, reported: 0, forwardedAtSnapshot: 2, depth: 2 },
  ];
  for (const r of rows) it(r.name, () => assert.equal(peerQueueDepth(r.forwardedNow, r.reported, r.forwardedAtSnapshot), r.depth));
});
