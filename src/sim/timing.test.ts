import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeMs, msToNs, prefillMs, TimeScale } from './timing.js';

describe('timing model', () => {
  it('prefills at the configured rate when there is no slow-down', () => {
    assert.equal(prefillMs(0, 2000, 2000, 0), 1000);
    assert.equal(prefillMs(1500, 2000, 2000, 0), 250);
  });

  it('reads later tokens slower when a slow-down per thousand tokens is set', () => {
    const early = prefillMs(0, 1000, 1000, 0.5);
    const late = prefillMs(9000, 10000, 1000, 0.5);
    assert.ok(late > early * 4, `late ${late} should be much slower than early ${early}`);
  });

  it('decodes at the configured rate and reports integer nanoseconds', () => {
    assert.equal(decodeMs(50, 50), 1000);
    assert.equal(msToNs(1.5), 1_500_000);
  });

  it('scales waits but converts measured wall time back to simulated time', () => {
    const scale = new TimeScale(0.01);
    assert.equal(scale.wallMs(1000), 10);
    assert.equal(scale.simMs(10), 1000);
    assert.equal(new TimeScale(0).simMs(10), 0);
  });

  it('rejects a negative time scale', () => {
    assert.throws(() => new TimeScale(-1));
  });
});
