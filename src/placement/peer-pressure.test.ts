import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { peerPressure, UNKNOWN_PRESSURE } from './peer-load.js';

describe('peerPressure: a peer band as ranking reads it (spec, "Absent means neutral, never idle")', () => {
  const rows: readonly { name: string; reported: number | null; forwarded: number; reads: number }[] = [
    { name: 'a peer that sent no band reads mid-band, never idle', reported: null, forwarded: 0, reads: UNKNOWN_PRESSURE },
    { name: 'a peer that measured idle reads 0 while this Hub sends it nothing', reported: 0, forwarded: 0, reads: 0 },
    { name: 'a peer claiming 0 is floored by the forwards this Hub has in flight there', reported: 0, forwarded: 2, reads: 2 },
    { name: 'the floor stops at the top band', reported: 0, forwarded: 9, reads: 3 },
    { name: 'an unknown band is floored too', reported: null, forwarded: 3, reads: 3 },
    { name: 'a band above the floor stands', reported: 3, forwarded: 1, reads: 3 },
  ];
  for (const r of rows) it(r.name, () => assert.equal(peerPressure(r.reported, r.forwarded), r.reads));
});
