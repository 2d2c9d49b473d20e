import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { elapsedMs, ManualClock } from './clock.js';

describe('ManualClock as a timer', () => {
  it('fires a wait only when advance() reaches its due time, waits due together in due order', () => {
    const clock = new ManualClock();
    const fired: string[] = [];
    clock.after(300, () => fired.push('300'));
    clock.after(100, () => fired.push('100'));
    clock.advance(99);
    assert.deepEqual(fired, []);
    assert.equal(clock.pendingTimers(), 2);
    clock.advance(201);
    assert.deepEqual(fired, ['100', '300']);
    assert.equal(clock.pendingTimers(), 0);
    clock.advance(1_000);
    assert.deepEqual(fired, ['100', '300'], 'a wait fires once');
  });

  it('never fires a cancelled wait', () => {
    const clock = new ManualClock();
    let fired = false;
    const cancel = clock.after(10, () => (fired = true));
    cancel();
    clock.advance(10);
    assert.deepEqual([fired, clock.pendingTimers()], [false, 0]);
  });

  it('measures a wait from when it was started', () => {
    const clock = new ManualClock();
    clock.advance(50);
    let fired = false;
    clock.after(10, () => (fired = true));
    clock.advance(9);
    assert.equal(fired, false);
    clock.advance(1);
    assert.equal(fired, true);
  });
});

describe('elapsedMs', () => {
  const rows: [string, number, number, number][] = [
    ['a moment in the past: the difference', 10_000, 4_000, 6_000],
    ['the same moment: zero', 5_000, 5_000, 0],
    ['a moment up to a second ahead, as readings taken a moment apart arrive: now', 10_000, 11_000, 0],
    ['a moment more than a second ahead, read before the wall clock was set back: long past', 10_000, 11_001, Number.POSITIVE_INFINITY],
    ['a moment two hours ahead: long past', 1_000, 7_201_000, Number.POSITIVE_INFINITY],
  ];
  for (const [what, now, since, expected] of rows)
    it(`takes ${what}`, () => {
      assert.equal(elapsedMs(now, since), expected);
    });
});
