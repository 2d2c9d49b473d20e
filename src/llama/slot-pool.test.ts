import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Token } from 'node-llama-cpp';
import { SlotPool, type SlotSequence } from './slot-pool.js';

/** A stand-in sequence holding `held` tokens. */
function seq(held: number[]): SlotSequence & { held: number[] } {
  return {
    held,
    compareContextTokens(tokens: Token[]) {
      let i = 0;
      while (i < held.length && i < tokens.length && held[i] === tokens[i]) i++;
      return { firstDifferentIndex: i };
    },
  };
}
const toks = (...n: number[]) => n as Token[];
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

describe('slot pool', () => {
  it('gives a request the free slot holding the longest prefix of its prompt', async () => {
    const pool = new SlotPool([seq(range(0, 5)), seq(range(0, 20)), seq(range(100, 120))]);
    const lease = await pool.acquire(toks(...range(0, 30)));
    assert.equal(lease.index, 1);
    assert.equal(lease.sharedPrefix, 20);
  });

  it('ignores a prefix under a tenth of the prompt and takes the slot idle longest', async () => {
    const pool = new SlotPool([seq([1, 2]), seq([])]);
    const first = await pool.acquire(toks(1, ...range(500, 540)));
    assert.equal(first.index, 0, 'both unused so far: the first');
    first.release();
    // Slot 0 shares one token (the beginning token) of 41: not worth overwriting; slot 1 has been idle longer.
    const second = await pool.acquire(toks(1, ...range(700, 740)));
    assert.equal(second.index, 1);
  });

  it('queues requests beyond the slots in arrival order and hands each the freed slot', async () => {
    const pool = new SlotPool([seq([])]);
    const a = await pool.acquire(toks(1));
    const order: string[] = [];
    const b = pool.acquire(toks(2)).then((l) => (order.push('b'), l));
    const c = pool.acquire(toks(3)).then((l) => (order.push('c'), l));
    assert.equal(pool.waiting, 2);
    a.release();
    a.release(); // idempotent
    (await b).release();
    (await c).release();
    assert.deepEqual(order, ['b', 'c']);
    assert.equal(pool.busy, 0);
  });

  it('drops a waiter whose signal aborts, without taking a slot', async () => {
    const pool = new SlotPool([seq([])]);
    const a = await pool.acquire(toks(1));
    const ac = new AbortController();
    const waiting = pool.acquire(toks(2), ac.signal);
    ac.abort(new DOMException('gone', 'AbortError'));
    await assert.rejects(waiting, { name: 'AbortError' });
    assert.equal(pool.waiting, 0);
    a.release();
    assert.equal(pool.busy, 0);
  });
});
