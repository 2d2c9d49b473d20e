import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../util/clock.js';
import { AffinityTable, PREFIX_AFFINITY_MAX_KEYS } from './affinity-table.js';

const at = (node: string) => ({ node, backendId: null });

describe('AffinityTable', () => {
  it('holds 1,000 keys by default', () => assert.equal(PREFIX_AFFINITY_MAX_KEYS, 1_000));

  it('built without a bound, drops the first key when the 1,001st is placed', () => {
    const t = new AffinityTable({ clock: new ManualClock(), ttlMs: 600_000 });
    for (let i = 0; i <= PREFIX_AFFINITY_MAX_KEYS; i++) t.place(`k${i}`, at('n'));
    assert.equal(t.size, PREFIX_AFFINITY_MAX_KEYS);
    assert.equal(t.lookup('k0'), null);
    assert.deepEqual(t.lookup('k1'), at('n'));
  });

  it('remembers the last placement, and a failover overwrites it', () => {
    const t = new AffinityTable({ clock: new ManualClock(), ttlMs: 600_000 });
    t.place('k', at('core-1'));
    t.place('k', at('core-2'));
    assert.deepEqual(t.lookup('k'), at('core-2'));
  });

  it('expires an entry its TTL after its last placement', () => {
    const clock = new ManualClock();
    const t = new AffinityTable({ clock, ttlMs: 1_000 });
    t.place('k', at('core-1'));
    clock.advance(999);
    assert.deepEqual(t.lookup('k'), at('core-1'));
    clock.advance(1);
    assert.equal(t.lookup('k'), null);
  });

  it('forgets a placement made before the wall clock was set back, rather than holding the session to it for as long as the step', () => {
    const clock = new ManualClock();
    const t = new AffinityTable({ clock, ttlMs: 600_000 });
    t.place('k', at('core-1'));
    clock.advance(-2 * 60 * 60_000);
    assert.equal(t.lookup('k'), null);
    t.place('k', at('core-2'));
    clock.advance(599_999);
    assert.deepEqual(t.lookup('k'), at('core-2'), 'a placement made after the step lives its TTL');
  });

  it('drops an expired entry when it is looked up, so it no longer takes a place', () => {
    const clock = new ManualClock();
    const t = new AffinityTable({ clock, ttlMs: 1_000 });
    t.place('k', at('core-1'));
    t.place('other', at('core-1'));
    clock.advance(1_000);
    t.lookup('k');
    assert.equal(t.size, 1);
  });

  it('keeps the local engine a session was placed on', () => {
    const t = new AffinityTable({ clock: new ManualClock(), ttlMs: 600_000 });
    t.place('k', { node: 'local', backendId: 'ollama' });
    assert.deepEqual(t.lookup('k'), { node: 'local', backendId: 'ollama' });
  });

  it('drops the least recently placed key first when full', () => {
    const t = new AffinityTable({ clock: new ManualClock(), ttlMs: 600_000, maxKeys: 2 });
    t.place('a', at('n'));
    t.place('b', at('n'));
    t.place('a', at('n'));
    t.place('c', at('n'));
    assert.equal(t.lookup('b'), null);
    assert.notEqual(t.lookup('a'), null);
    assert.notEqual(t.lookup('c'), null);
    assert.equal(t.size, 2);
  });

  it('forgets a key', () => {
    const t = new AffinityTable({ clock: new ManualClock(), ttlMs: 600_000 });
    t.place('k', at('n'));
    t.place('other', at('n'));
    t.forget('k');
    assert.equal(t.lookup('k'), null);
    assert.equal(t.size, 1);
  });
});
