import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../util/clock.js';
import { ConnectionDrops, DROP_WARNING_INTERVAL_MS } from './connection-drops.js';

describe('ConnectionDrops', () => {
  it('warns at the first drop, then once a minute with the drops since the last warning', () => {
    const clock = new ManualClock(1_000_000);
    const drops = new ConnectionDrops(clock);
    assert.equal(drops.record(), 1);
    assert.equal(drops.record(), null);
    clock.advance(DROP_WARNING_INTERVAL_MS - 1);
    assert.equal(drops.record(), null);
    clock.advance(1);
    assert.equal(drops.record(), 3, 'the two held back and this one');
    assert.equal(drops.record(), null);
  });

  it('warns about the next drop after the wall clock is set back, rather than staying quiet for as long as the step', () => {
    const clock = new ManualClock(1_000_000_000);
    const drops = new ConnectionDrops(clock);
    assert.equal(drops.record(), 1);
    clock.advance(-60 * 60_000);
    assert.equal(drops.record(), 1);
    assert.equal(drops.record(), null, 'the minute counts again from that warning');
  });

  it('warns at once again after a quiet minute', () => {
    const clock = new ManualClock(0);
    const drops = new ConnectionDrops(clock);
    assert.equal(drops.record(), 1);
    clock.advance(10 * DROP_WARNING_INTERVAL_MS);
    assert.equal(drops.record(), 1);
  });
});
