import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { MAX_TIMER_DELAY_MS, systemTimer } from './timer.js';

describe('systemTimer', () => {
  it('holds a wait longer than Node can keep at the longest it can, instead of firing it at once', async () => {
    let fired = false;
    const cancel = systemTimer.after(MAX_TIMER_DELAY_MS * 2, () => (fired = true));
    // Node fires an overflowing delay after 1 ms; 50 ms later it would have, however loaded the machine.
    await sleep(50);
    cancel();
    assert.equal(fired, false);
  });
});
