import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as tick } from 'node:timers/promises';
import {
  fullCollection,
  IDLE_COLLECTION_MIN_BYTES as MIN,
  IDLE_COLLECTIONS_PER_SPELL_MAX as SPELL_MAX,
  IdleCollector,
  shouldCollect,
  type IdleCheck,
} from './idle-collection.js';

const MB = 1024 * 1024;

describe('shouldCollect', () => {
  const burstOver: IdleCheck = {
    inFlight: 0,
    placedSinceLastCheck: 0,
    heldBytes: 100 * MB + MIN,
    baselineBytes: 100 * MB,
    idleHeapBytes: 0,
    collectionsThisSpell: 0,
  };
  const cases: { name: string; check: IdleCheck; collect: boolean }[] = [
    { name: 'collects when nothing is in flight, nothing was placed since, and the heap grew by the bound', check: burstOver, collect: true },
    { name: 'waits while an inference request is in flight', check: { ...burstOver, inFlight: 1 }, collect: false },
    { name: 'waits when a request was placed and finished since the last check', check: { ...burstOver, placedSinceLastCheck: 3 }, collect: false },
    { name: 'leaves a heap that grew less than the bound', check: { ...burstOver, heldBytes: 100 * MB + MIN - 1 }, collect: false },
    { name: 'leaves a heap smaller than after the last collection', check: { ...burstOver, heldBytes: 90 * MB }, collect: false },
    {
      name: 'collects again in the same spell while V8 holds heap pages it does not use',
      check: { ...burstOver, heldBytes: 100 * MB, idleHeapBytes: MIN, collectionsThisSpell: 1 },
      collect: true,
    },
    {
      name: 'does not collect for unused pages alone before a first collection (a fresh heap has some)',
      check: { ...burstOver, heldBytes: 100 * MB, idleHeapBytes: 2 * MIN },
      collect: false,
    },
    {
      name: 'stops after the spell bound, whatever it holds',
      check: { ...burstOver, idleHeapBytes: 2 * MIN, collectionsThisSpell: SPELL_MAX },
      collect: false,
    },
  ];
  for (const c of cases) it(c.name, () => assert.equal(shouldCollect(c.check), c.collect));
});

/** A collector over a scripted process: requests and heap set by the test, collections counted. */
function scripted(startBytes: number) {
  const state = {
    open: 0,
    placed: 0,
    held: startBytes,
    idle: 0,
    collections: 0,
    obtained: 0,
    freesTo: startBytes,
    idleAfter: 0,
    pooled: 0,
    steps: [] as string[],
  };
  const collector = new IdleCollector({
    inFlight: () => state.open,
    placed: () => state.placed,
    readHeap: () => ({ heldBytes: state.held, idleHeapBytes: state.idle }),
    collector: () => {
      state.obtained += 1;
      return () => {
        state.steps.push('collect');
        state.collections += 1;
        state.held = state.freesTo;
        state.idle = state.idleAfter;
      };
    },
    closePooledParsers: () => {
      state.steps.push('close parsers');
      const closed = state.pooled;
      state.pooled = 0;
      return closed;
    },
  });
  return { state, collector };
}

describe('IdleCollector', () => {
  it('collects after a burst at the first check that finds the Hub quiet, and measures from what is left', () => {
    const { state, collector } = scripted(20 * MB);
    state.open = 5;
    state.placed = 1000;
    state.held = 150 * MB;
    assert.equal(collector.check(), null, 'requests in flight');
    state.open = 0;
    state.placed += 2;
    assert.equal(collector.check(), null, 'requests placed since the last check');
    state.freesTo = 22 * MB;
    state.pooled = 1000;
    assert.deepEqual(collector.check(), {
      before: { heldBytes: 150 * MB, idleHeapBytes: 0 },
      after: { heldBytes: 22 * MB, idleHeapBytes: 0 },
      inSpell: 1,
      parsersClosed: 1000,
    });
    assert.deepEqual(state.steps, ['close parsers', 'collect'], 'the parsers are closed first, so the collection takes their JS halves');
    assert.equal(collector.check(), null, 'nothing grew since, and no page is left unused');
    assert.deepEqual([state.collections, state.obtained], [1, 1]);
  });

  it('keeps collecting while heap pages sit unused, up to the spell bound, and counts a new spell after work is placed', () => {
    const { state, collector } = scripted(20 * MB);
    state.held = 150 * MB;
    state.freesTo = 22 * MB;
    state.idleAfter = 50 * MB;
    for (let i = 0; i < SPELL_MAX + 3; i++) collector.check();
    assert.equal(state.collections, SPELL_MAX);
    state.placed += 1;
    collector.check();
    assert.equal(state.collections, SPELL_MAX, 'work was placed since the last check');
    state.held = 22 * MB + MIN;
    collector.check();
    assert.equal(state.collections, SPELL_MAX + 1, 'a new spell after the next burst');
  });

  it('never asks for the collector, nor closes pooled parsers, on a Hub that stays idle', () => {
    const { state, collector } = scripted(20 * MB);
    state.idle = 3 * MIN;
    state.pooled = 10;
    for (let i = 0; i < 10; i++) collector.check();
    assert.deepEqual([state.collections, state.obtained, state.pooled], [0, 0, 10]);
  });

  it('keeps the baseline where live data really grew, so it does not collect again and again', () => {
    const { state, collector } = scripted(20 * MB);
    state.held = 60 * MB;
    state.freesTo = 58 * MB;
    collector.check();
    state.held = 60 * MB;
    assert.equal(collector.check(), null);
    assert.equal(state.collections, 1);
  });

  it("measures a burst from the lowest the heap fell to since the last collection, so V8's own collections do not hide it", () => {
    // The start-up's garbage is in the first reading; V8 then collects it on its own.
    const { state, collector } = scripted(40 * MB);
    state.held = 25 * MB;
    state.placed += 1;
    assert.equal(collector.check(), null, 'work placed since the last check');
    state.held = 25 * MB + MIN;
    state.freesTo = 25 * MB;
    assert.notEqual(collector.check(), null, "the burst's garbage, measured from 25 MB, not from the start's 40");
    assert.equal(state.collections, 1);
  });

  it('does nothing when the runtime offers no collection', () => {
    let held = 0;
    const collector = new IdleCollector({
      inFlight: () => 0,
      placed: () => 0,
      readHeap: () => ({ heldBytes: (held += MIN), idleHeapBytes: 0 }),
      collector: () => null,
      closePooledParsers: () => assert.fail('nothing is closed when nothing can be collected'),
    });
    assert.equal(collector.check(), null);
  });
});

describe('fullCollection', () => {
  it("is V8's own full collection: an object nothing holds is gone after it", async () => {
    const gc = fullCollection();
    assert.equal(typeof gc, 'function');
    let ref: WeakRef<object> | null = null;
    (() => {
      ref = new WeakRef({ payload: new Array(1000).fill(0) });
    })();
    // A WeakRef's target is kept until the job that created it ends.
    await tick();
    gc!();
    await tick();
    assert.equal(ref!.deref(), undefined);
  });
});
