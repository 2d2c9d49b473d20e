import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { ManualClock } from '../util/clock.js';
import type { BackgroundTask } from '../util/background.js';
import { PRESSURE_SAMPLE_INTERVAL_MS, PressureSampler } from './pressure-sampler.js';
import type { PressureReading } from './pressure-sources.js';

/** A sampler over a scripted source, with the clock and the scheduler in the test's hands. */
function harness(initial: { connected: boolean; busy: number | null }) {
  const clock = new ManualClock();
  const state = { ...initial, source: 'amd-drm' as PressureReading['source'], reads: 0 };
  const scheduled: { name: string; intervalMs: number; task: BackgroundTask }[] = [];
  const sampler = new PressureSampler({
    clock,
    logger: pino({ level: 'silent' }),
    peerConnected: () => state.connected,
    read: async () => {
      state.reads += 1;
      return state.busy === null ? null : { source: state.source, busyPercent: state.busy, path: `/x/${state.source}` };
    },
  });
  sampler.start((name, intervalMs, task) => {
    scheduled.push({ name, intervalMs, task });
    return { stop: () => undefined };
  });
  /** One 10 s interval passes and the scheduled tick runs. */
  const interval = async () => {
    clock.advance(PRESSURE_SAMPLE_INTERVAL_MS);
    for (const s of scheduled) await s.task();
  };
  return { clock, state, sampler, scheduled, interval };
}

describe('PressureSampler', () => {
  it('is scheduled every 10 s under the background owner', () => {
    const h = harness({ connected: false, busy: 50 });
    assert.deepEqual(
      h.scheduled.map((s) => [s.name, s.intervalMs]),
      [['gpu pressure sample', 10_000]],
    );
  });

  it('reads no file at all while no peer is connected, and advertises no band', async () => {
    const h = harness({ connected: false, busy: 90 });
    for (let i = 0; i < 5; i++) await h.interval();
    assert.equal(h.state.reads, 0);
    assert.equal(h.sampler.band(), null);
    assert.equal(h.sampler.view().sampling, false);
  });

  it('starts reading once a peer connects, one reading per tick', async () => {
    const h = harness({ connected: false, busy: 90 });
    await h.interval();
    h.state.connected = true;
    await h.interval();
    await h.interval();
    assert.equal(h.state.reads, 2);
    assert.equal(h.sampler.band(), 3);
  });

  it('stops reading when the last peer goes, and its band ages out after two intervals', async () => {
    const h = harness({ connected: true, busy: 50 });
    await h.interval();
    assert.equal(h.sampler.band(), 1);
    h.state.connected = false;
    await h.interval();
    assert.equal(h.sampler.band(), 1, 'one interval old: still published');
    await h.interval();
    assert.equal(h.sampler.band(), 1, 'two intervals old: still published');
    h.clock.advance(1);
    assert.equal(h.sampler.band(), null, 'older than two intervals: absent, not the last value');
    assert.equal(h.state.reads, 1);
  });

  it('stops advertising a band read before the wall clock was set back, rather than for as long as the step', async () => {
    const h = harness({ connected: true, busy: 50 });
    await h.interval();
    assert.equal(h.sampler.band(), 1);
    h.state.connected = false;
    h.clock.advance(-2 * 60 * 60_000);
    assert.equal(h.sampler.band(), null, 'the reading lies ahead of now: absent, not the last value');
    h.state.connected = true;
    h.state.busy = 0;
    await h.interval();
    assert.equal(h.sampler.band(), 0, 'the next reading starts the average afresh and is advertised');
  });

  it('starts the average afresh after a gap rather than folding a stale value in', async () => {
    const h = harness({ connected: true, busy: 100 });
    await h.interval();
    assert.equal(h.sampler.band(), 3);
    h.state.connected = false;
    for (let i = 0; i < 3; i++) await h.interval();
    h.state.connected = true;
    h.state.busy = 0;
    await h.interval();
    // Folded into the old 100 %, one idle reading would leave band 2 (a fall walks one band); afresh it is 0.
    assert.equal(h.sampler.band(), 0);
  });

  it('starts afresh when the source changes', async () => {
    const h = harness({ connected: true, busy: 100 });
    await h.interval();
    h.state.source = 'host-file';
    h.state.busy = 0;
    await h.interval();
    assert.equal(h.sampler.band(), 0);
    assert.equal(h.sampler.view().source, 'host-file');
  });

  it('has no band while no source answers, though a peer is connected', async () => {
    const h = harness({ connected: true, busy: null });
    await h.interval();
    assert.equal(h.state.reads, 1);
    assert.equal(h.sampler.band(), null);
    assert.equal(h.sampler.view().noSource, true);
  });

  it('keeps a measured idle GPU as band 0, which is not the same as no band', async () => {
    const h = harness({ connected: true, busy: 0 });
    await h.interval();
    assert.equal(h.sampler.band(), 0);
    assert.equal(h.sampler.view().smoothedPercent, 0);
  });

  it('smooths across ticks: a saturated GPU climbs a band or two per reading', async () => {
    const h = harness({ connected: true, busy: 0 });
    await h.interval();
    h.state.busy = 100;
    const bands: (number | null)[] = [];
    for (let i = 0; i < 4; i++) {
      await h.interval();
      bands.push(h.sampler.band());
    }
    assert.deepEqual(bands, [1, 1, 2, 3]);
  });
});
