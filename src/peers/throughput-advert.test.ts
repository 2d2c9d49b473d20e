import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FORGET_AFTER_MS } from '../placement/throughput/bands.js';
import { advertisedReadings, advertOf, MAX_ADVERTISED_BANDS, MAX_ADVERTISED_MODELS, readThroughputAdvert } from './throughput-advert.js';

const band = (fromTokens: number, tokensPerSec: number, ageMs = 0) => ({ fromTokens, promptTokens: fromTokens + 100, tokensPerSec, deadline: false, ageMs });

describe('readThroughputAdvert: untrusted, bounded', () => {
  it('refuses more models than the bound, whole', () => {
    const doc = Object.fromEntries(Array.from({ length: MAX_ADVERTISED_MODELS + 1 }, (_, i) => [`m${i}`, { bands: [], decodeTokensPerSec: null }]));
    assert.equal(readThroughputAdvert(doc), null);
  });
  it('leaves out a model with more bands than the bound, and keeps the others', () =>
    assert.deepEqual(
      readThroughputAdvert({
        m: { bands: Array.from({ length: MAX_ADVERTISED_BANDS + 1 }, () => band(4096, 100)), decodeTokensPerSec: null },
        n: { bands: [band(4096, 100)], decodeTokensPerSec: null },
      }),
      { n: { bands: [band(4096, 100)], decodeTokensPerSec: null } },
    ));
  // One engine's odd figure must not take every model's evidence with it: refused whole, the
  // peer read as unmeasured for every model (audit, 2026-12-07).
  const sound = band(8192, 100);
  for (const [what, bad] of [
    ['an age past the 2-hour memory', band(4096, 100, FORGET_AFTER_MS + 1)],
    ['a rate no engine reaches', band(4096, 1e9)],
    ['a rate of zero', band(4096, 0)],
    ['a size under the smallest band', band(1024, 100)],
    ['a reading smaller than its band', { ...band(8192, 100), promptTokens: 4096 }],
    ['a band that is not an object', 'fast'],
  ] as const) {
    it(`drops a band with ${what}, and keeps the model's other bands and the other models`, () =>
      assert.deepEqual(readThroughputAdvert({ m: { bands: [bad, sound], decodeTokensPerSec: 30 }, n: { bands: [sound], decodeTokensPerSec: null } }), {
        m: { bands: [sound], decodeTokensPerSec: 30 },
        n: { bands: [sound], decodeTokensPerSec: null },
      }));
  }
  it('reads an age below zero (a peer whose clock stepped back) as taken now, and a fractional one rounded', () =>
    assert.deepEqual(readThroughputAdvert({ m: { bands: [band(4096, 100, -5_000), band(8192, 50, 1_000.4)], decodeTokensPerSec: null } }), {
      m: { bands: [band(4096, 100, 0), band(8192, 50, 1_000)], decodeTokensPerSec: null },
    }));
  it('leaves out a model whose entry is not one, and reads none when no model is left', () => {
    assert.deepEqual(readThroughputAdvert({ m: { decodeTokensPerSec: 30 }, n: { bands: [sound], decodeTokensPerSec: null } }), {
      n: { bands: [sound], decodeTokensPerSec: null },
    });
    assert.equal(readThroughputAdvert({ m: 'fast' }), null);
    assert.equal(readThroughputAdvert([]), null);
  });
  it('reads a well-formed advert as sent', () =>
    assert.deepEqual(readThroughputAdvert({ m: { bands: [band(4096, 100)], decodeTokensPerSec: 30 } }), {
      m: { bands: [band(4096, 100)], decodeTokensPerSec: 30 },
    }));
});

describe("readThroughputAdvert: a decode rate's age", () => {
  it('keeps the age a peer sends with its rate', () =>
    assert.deepEqual(readThroughputAdvert({ m: { bands: [], decodeTokensPerSec: 30, decodeAgeMs: 60_000 } }), {
      m: { bands: [], decodeTokensPerSec: 30, decodeAgeMs: 60_000 },
    }));
  it('reads a rate sent without an age (an older build) as it did', () =>
    assert.deepEqual(readThroughputAdvert({ m: { bands: [], decodeTokensPerSec: 30 } }), { m: { bands: [], decodeTokensPerSec: 30 } }));
  it('reads an age below zero as now and a fractional one rounded', () => {
    for (const [decodeAgeMs, read] of [
      [-1, 0],
      [0.5, 1],
    ] as const)
      assert.deepEqual(readThroughputAdvert({ m: { bands: [], decodeTokensPerSec: 30, decodeAgeMs } }), {
        m: { bands: [], decodeTokensPerSec: 30, decodeAgeMs: read },
      });
  });
  it('drops a rate whose age is past the 2 hours a reading is kept, or not a number, and keeps the bands', () => {
    for (const decodeAgeMs of [FORGET_AFTER_MS + 1, '60000'])
      assert.deepEqual(
        readThroughputAdvert({ m: { bands: [band(4096, 100)], decodeTokensPerSec: 30, decodeAgeMs } }),
        { m: { bands: [band(4096, 100)], decodeTokensPerSec: null } },
        String(decodeAgeMs),
      );
  });
});

describe('advertOf: what this node advertises', () => {
  it('is null when nothing has been timed, so the key is left out', () => assert.equal(advertOf([]), null));
  it('per model, the slowest reading of each band across the engines holding it', () => {
    const advert = advertOf([
      { node: 'local', backendId: 'ollama', model: 'm', bands: [band(4096, 300), band(8192, 200)], decodeTokensPerSec: 40, decodeAgeMs: 90_000.4 },
      { node: 'local', backendId: 'vllm', model: 'm', bands: [band(4096, 100)], decodeTokensPerSec: 60, decodeAgeMs: 1_000 },
    ]);
    assert.deepEqual(advert, { m: { bands: [band(4096, 100), band(8192, 200)], decodeTokensPerSec: 40, decodeAgeMs: 90_000 } });
  });
  it("sends an age below zero (this node's clock stepped back since the reading) as zero", () =>
    assert.deepEqual(
      advertOf([{ node: 'local', backendId: 'ollama', model: 'm', bands: [band(4096, 100, -5_000)], decodeTokensPerSec: 40, decodeAgeMs: -5_000 }]),
      { m: { bands: [band(4096, 100, 0)], decodeTokensPerSec: 40, decodeAgeMs: 0 } },
    ));
  it('advertises a model named like a member of every object as any other', () => {
    const advert = advertOf([
      { node: 'local', backendId: 'ollama', model: 'constructor', bands: [band(4096, 300)], decodeTokensPerSec: null, decodeAgeMs: null },
      { node: 'local', backendId: 'ollama', model: 'toString', bands: [band(4096, 200)], decodeTokensPerSec: null, decodeAgeMs: null },
    ]);
    assert.deepEqual(JSON.parse(JSON.stringify(advert)), {
      constructor: { bands: [band(4096, 300)], decodeTokensPerSec: null },
      toString: { bands: [band(4096, 200)], decodeTokensPerSec: null },
    });
  });
});

describe('advertisedReadings: aged from the snapshot', () => {
  const advert = { m: { bands: [band(4096, 100, 60_000), band(8192, 50, FORGET_AFTER_MS - 1000)], decodeTokensPerSec: null } };
  it('dates each band from the snapshot time less its age', () =>
    assert.equal(advertisedReadings(advert, 'm', 1_000_000_000, 1_000_000_000)[0]?.atMs, 1_000_000_000 - 60_000));
  it('forgets a band that aged past 2 hours since the snapshot', () =>
    assert.deepEqual(
      advertisedReadings(advert, 'm', 1_000_000_000, 1_000_000_000 + 2000).map((r) => r.fromTokens),
      [4096],
    ));
  it('forgets a band dated ahead of now (its snapshot was taken before the wall clock was set back), and ages the others as usual', () => {
    const snapshot = 1_000_000_000;
    const fresh = { m: { bands: [band(4096, 100, 0), band(8192, 50, 60 * 60_000)], decodeTokensPerSec: null } };
    // Set back 30 minutes: the band read at the snapshot lies ahead; the one an hour older is 30 minutes old.
    assert.deepEqual(
      advertisedReadings(fresh, 'm', snapshot, snapshot - 30 * 60_000).map((r) => r.fromTokens),
      [8192],
    );
    assert.deepEqual(advertisedReadings(fresh, 'm', snapshot, snapshot - 2 * 60 * 60_000), [], 'set back 2 hours: both lie ahead');
  });
  it('a model the peer did not advertise is unmeasured', () => assert.deepEqual(advertisedReadings(advert, 'other', 0, 0), []));
  it('a model named like a member of every object is unmeasured unless advertised, and read when it is', () => {
    for (const name of ['constructor', 'toString', 'hasOwnProperty', '__proto__']) assert.deepEqual(advertisedReadings(advert, name, 0, 0), [], name);
    const named = readThroughputAdvert({ constructor: { bands: [band(4096, 100)], decodeTokensPerSec: null } });
    assert.deepEqual(
      advertisedReadings(named, 'constructor', 0, 0).map((r) => r.tokensPerSec),
      [100],
    );
  });
});

describe('advertisedReadings: read once per advert and snapshot', () => {
  const snapshot = 1_000_000_000;
  it('reads the same advert at the same snapshot once', () => {
    const advert = { m: { bands: [band(4096, 100, 60_000)], decodeTokensPerSec: null } };
    assert.equal(advertisedReadings(advert, 'm', snapshot, snapshot), advertisedReadings(advert, 'm', snapshot, snapshot + 1000));
  });
  it('reads a new advert afresh, though the snapshot time is the same', () => {
    const first = { m: { bands: [band(4096, 100)], decodeTokensPerSec: null } };
    const second = { m: { bands: [band(4096, 40)], decodeTokensPerSec: null } };
    assert.equal(advertisedReadings(first, 'm', snapshot, snapshot)[0]?.tokensPerSec, 100);
    assert.equal(advertisedReadings(second, 'm', snapshot, snapshot)[0]?.tokensPerSec, 40);
  });
  it('dates the same advert afresh from a new snapshot time', () => {
    const advert = { m: { bands: [band(4096, 100, 60_000)], decodeTokensPerSec: null } };
    assert.equal(advertisedReadings(advert, 'm', snapshot, snapshot)[0]?.atMs, snapshot - 60_000);
    assert.equal(advertisedReadings(advert, 'm', snapshot + 5000, snapshot + 5000)[0]?.atMs, snapshot + 5000 - 60_000);
  });
  it('drops a band forgotten since the advert was first read, and keeps the others', () => {
    // The older band first, so that it is the oldest, not the last, that says when the read is stale.
    const advert = { m: { bands: [band(8192, 50, FORGET_AFTER_MS - 1000), band(4096, 100, 60_000)], decodeTokensPerSec: null } };
    assert.equal(advertisedReadings(advert, 'm', snapshot, snapshot).length, 2);
    assert.deepEqual(
      advertisedReadings(advert, 'm', snapshot, snapshot + 1000).map((r) => r.fromTokens),
      [8192, 4096],
    );
    assert.deepEqual(
      advertisedReadings(advert, 'm', snapshot, snapshot + 1001).map((r) => r.fromTokens),
      [4096],
    );
    assert.equal(advertisedReadings(advert, 'm', snapshot, snapshot + FORGET_AFTER_MS - 60_000 + 1).length, 0);
  });
});
