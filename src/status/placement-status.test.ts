import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FORGET_AFTER_MS } from '../placement/throughput/bands.js';
import { ThroughputBook } from '../placement/throughput/book.js';
import { advertisedReadings, type ThroughputAdvert } from '../peers/throughput-advert.js';
import { ManualClock } from '../util/clock.js';
import { peerPlacementStatus } from './placement-status.js';

const SNAPSHOT_AT = 10_000_000;
const band = (fromTokens: number, ageMs: number) => ({ fromTokens, promptTokens: fromTokens + 100, tokensPerSec: 300, deadline: false, ageMs });
const advert: ThroughputAdvert = {
  // The 4,096 band was 1 hour old at the snapshot, the 8,192 band 10 minutes.
  'qwen3:8b': { bands: [band(4096, 60 * 60_000), band(8192, 10 * 60_000)], decodeTokensPerSec: null },
  'old:1b': { bands: [band(4096, 90 * 60_000)], decodeTokensPerSec: null },
  'decode-only:1b': { bands: [band(4096, 90 * 60_000)], decodeTokensPerSec: 40, decodeAgeMs: 30 * 60_000 },
  // From a peer on a build that sent no age with its rate.
  'ageless:1b': { bands: [], decodeTokensPerSec: 25 },
};
const facts = { ollamaSlots: null, throughput: advert, snapshotAtMs: SNAPSHOT_AT };
const book = new ThroughputBook(new ManualClock());

describe("peerPlacementStatus: a peer's advert as routing reads it", () => {
  it('ages each band from the snapshot to now', () => {
    const shown = peerPlacementStatus('core-2', facts, book, SNAPSHOT_AT + 5 * 60_000).throughput.advertised!;
    assert.deepEqual(
      shown['qwen3:8b']!.bands.map((b) => b.ageMs),
      [65 * 60_000, 15 * 60_000],
    );
  });

  it('drops the bands routing has forgotten, and a model left with neither bands nor a decode rate', () => {
    const now = SNAPSHOT_AT + 61 * 60_000;
    const shown = peerPlacementStatus('core-2', facts, book, now).throughput.advertised!;
    assert.deepEqual(Object.keys(shown).sort(), ['ageless:1b', 'decode-only:1b', 'qwen3:8b']);
    assert.deepEqual(shown['decode-only:1b'], { bands: [], decodeTokensPerSec: 40, decodeAgeMs: 91 * 60_000 });
    for (const model of Object.keys(advert))
      assert.deepEqual(
        (shown[model]?.bands ?? []).map((b) => b.fromTokens),
        advertisedReadings(advert, model, SNAPSHOT_AT, now).map((r) => r.fromTokens),
        `status shows what placement reads for ${model}`,
      );
  });

  it('shows a band through the last millisecond of its 2 hours, and not after', () => {
    const lastMs = SNAPSHOT_AT + FORGET_AFTER_MS - 10 * 60_000;
    assert.deepEqual(
      peerPlacementStatus('core-2', facts, book, lastMs).throughput.advertised!['qwen3:8b']!.bands.map((b) => b.fromTokens),
      [8192],
    );
    assert.equal(peerPlacementStatus('core-2', facts, book, lastMs + 1).throughput.advertised!['qwen3:8b'], undefined);
  });

  it('ages the decode rate from the snapshot to now, forgets it after 2 hours, and gives an ageless one a null age, not 0', () => {
    const shown = peerPlacementStatus('core-2', facts, book, SNAPSHOT_AT + 5 * 60_000).throughput.advertised!;
    assert.equal(shown['decode-only:1b']!.decodeAgeMs, 35 * 60_000);
    assert.deepEqual(shown['ageless:1b'], { bands: [], decodeTokensPerSec: 25, decodeAgeMs: null });
    assert.deepEqual(shown['qwen3:8b']!.decodeAgeMs, null, 'no rate, no age');
    const later = peerPlacementStatus('core-2', facts, book, SNAPSHOT_AT + FORGET_AFTER_MS - 30 * 60_000 + 1).throughput.advertised!;
    assert.equal(later['decode-only:1b'], undefined, 'a forgotten rate leaves a model with no bands out');
  });

  it('is null when the peer advertised nothing, or no snapshot was taken', () => {
    assert.equal(peerPlacementStatus('core-2', { ...facts, throughput: null }, book, SNAPSHOT_AT).throughput.advertised, null);
    assert.equal(peerPlacementStatus('core-2', null, book, SNAPSHOT_AT).throughput.advertised, null);
  });
});
