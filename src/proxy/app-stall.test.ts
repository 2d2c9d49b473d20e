import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { ManualClock } from '../util/clock.js';
import { AppStallWatch, type WatchedResponse } from './app-stall.js';

const STALL_MS = 1_000;

/** A response whose socket holds `room` bytes; the app takes bytes when the test says so. */
class FakeResponse extends EventEmitter {
  writableLength = 0;
  destroyed = false;
  constructor(private readonly room: number) {
    super();
  }
  write(chunk: Buffer): boolean {
    this.writableLength += chunk.length;
    return this.writableLength < this.room;
  }
  destroy(): this {
    this.destroyed = true;
    return this;
  }
  /** The app reads `bytes`; the socket drains when nothing is left waiting. */
  take(bytes: number): void {
    this.writableLength -= bytes;
    if (this.writableLength === 0) this.emit('drain');
  }
}

function rig() {
  const clock = new ManualClock();
  const res = new FakeResponse(16);
  let drains = 0;
  const watch = new AppStallWatch(res as unknown as WatchedResponse, STALL_MS, () => (drains += 1), clock);
  return { clock, res, watch, drains: () => drains };
}

const bytes = (n: number) => Buffer.alloc(n, 0x61);

describe('AppStallWatch', () => {
  it('does nothing while writes find room', () => {
    const { clock, res, watch } = rig();
    assert.equal(watch.write(bytes(8)), true);
    assert.equal(clock.pendingTimers(), 0);
    clock.advance(10 * STALL_MS);
    assert.equal(res.destroyed, false);
  });

  it('closes a response none of whose waiting bytes leave it for the stall time, and says it cut it after that long', () => {
    const { clock, res, watch } = rig();
    assert.equal(watch.write(bytes(32)), false);
    clock.advance(STALL_MS - 1);
    assert.deepEqual({ destroyed: res.destroyed, cutAfterMs: watch.cutAfterMs }, { destroyed: false, cutAfterMs: null });
    clock.advance(1);
    assert.deepEqual({ destroyed: res.destroyed, cutAfterMs: watch.cutAfterMs }, { destroyed: true, cutAfterMs: STALL_MS });
  });

  it('keeps an app that takes some bytes in every period, however long the buffer takes to drain', () => {
    const { clock, res, watch } = rig();
    watch.write(bytes(100));
    for (let period = 0; period < 10; period++) {
      res.take(5);
      clock.advance(STALL_MS);
      assert.equal(res.destroyed, false, `period ${period}`);
    }
    clock.advance(STALL_MS);
    assert.equal(res.destroyed, true, 'a period with nothing taken ends it');
  });

  it('counts a chunk written after the wait began as more waiting, not as progress', () => {
    const { clock, res, watch } = rig();
    watch.write(bytes(32));
    watch.write(bytes(32));
    clock.advance(STALL_MS);
    assert.equal(res.destroyed, true);
  });

  it('keeps one wait and one drain listener however many writes find the socket full (the chunks queued before the relay began)', () => {
    const { clock, res, watch } = rig();
    for (let i = 0; i < 12; i++) assert.equal(watch.write(bytes(32)), false);
    assert.deepEqual({ waits: clock.pendingTimers(), listeners: res.listenerCount('drain') }, { waits: 1, listeners: 1 });
  });

  it('ends the wait when the socket drains, tells the relay once, and watches again at the next full write', () => {
    const { clock, res, watch, drains } = rig();
    watch.write(bytes(32));
    watch.write(bytes(32));
    res.take(64);
    assert.deepEqual({ drains: drains(), waits: clock.pendingTimers() }, { drains: 1, waits: 0 });
    clock.advance(10 * STALL_MS);
    assert.equal(res.destroyed, false);
    watch.write(bytes(32));
    clock.advance(STALL_MS);
    assert.equal(res.destroyed, true);
  });

  it('watches the bytes still waiting when the answer has ended, though every write found room', () => {
    const { clock, res, watch } = rig();
    assert.equal(watch.write(bytes(8)), true);
    watch.ended();
    res.take(4);
    clock.advance(STALL_MS);
    assert.equal(res.destroyed, false, 'the app took some: slow, not gone');
    clock.advance(STALL_MS);
    assert.equal(res.destroyed, true);
  });

  it('starts no wait at the end when the app has taken everything', () => {
    const { clock, res, watch } = rig();
    watch.write(bytes(8));
    res.take(8);
    watch.ended();
    assert.equal(clock.pendingTimers(), 0);
  });

  it('ends the wait when stopped (the response finished or closed)', () => {
    const { clock, res, watch } = rig();
    watch.write(bytes(32));
    watch.stop();
    assert.equal(clock.pendingTimers(), 0);
    clock.advance(10 * STALL_MS);
    assert.equal(res.destroyed, false);
  });
});
