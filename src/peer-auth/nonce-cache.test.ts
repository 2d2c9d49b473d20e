import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { NonceCache } from './nonce-cache.js';
import { SKEW_WINDOW_MS } from './verify-signed.js';

const T0 = Date.UTC(2026, 10, 30, 12, 0, 0);

describe('NonceCache', () => {
  it('accepts a key once and refuses it again inside the ttl', () => {
    const cache = new NonceCache();
    assert.equal(cache.remember('a', T0), true);
    assert.equal(cache.remember('a', T0 + 1), false);
    assert.equal(cache.remember('b', T0 + 1), true);
  });

  it('remembers for two skew windows by default, then forgets', () => {
    const cache = new NonceCache();
    cache.remember('a', T0);
    assert.equal(cache.remember('a', T0 + 2 * SKEW_WINDOW_MS - 1), false);
    assert.equal(cache.remember('a', T0 + 2 * SKEW_WINDOW_MS), true);
  });

  it('drops expired entries as it goes, so an idle flood does not stay resident', () => {
    const cache = new NonceCache({ ttlMs: 1_000 });
    for (let i = 0; i < 50; i++) cache.remember(`k${i}`, T0 + i);
    assert.equal(cache.size, 50);
    cache.remember('late', T0 + 1_025);
    assert.equal(cache.size, 25, 'the 25 keys older than the ttl are gone, the late one is in');
  });

  it('is bounded: when full it evicts the oldest entry', () => {
    const cache = new NonceCache({ maxEntries: 3 });
    for (const key of ['a', 'b', 'c', 'd']) assert.equal(cache.remember(key, T0), true);
    assert.equal(cache.size, 3);
    assert.equal(cache.remember('a', T0), true, 'the oldest was evicted to make room');
    assert.equal(cache.remember('d', T0), false, 'the newest is still held');
  });

  it('judges each entry by its own expiry when a clock step left them out of order', () => {
    const cache = new NonceCache({ ttlMs: 1_000 });
    cache.remember('a', T0 + 500);
    cache.remember('b', T0); // the clock stepped back: b expires before a, yet sits behind it
    assert.equal(cache.remember('b', T0 + 600), false, 'still live');
    assert.equal(cache.remember('b', T0 + 1_200), true, 'expired, though a is still live in front of it');
  });
});
