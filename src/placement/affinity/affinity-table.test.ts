import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../util/clock.js';
import { AffinityTable, PREFIX_AFFINITY_MAX_KEYS } from './affinity-table.js';

const at = (node: string) => ({ node, backendId: null });

describe('AffinityTable', () => {
  it('holds 1,000 keys by default', () => assert.equal(PREFIX_AFFINITY_MAX_KEYS, 1_000));

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

  it('drops the least recently placed key first when full', () => {
    const t = new AffinityTable({ clock: new ManualClock(), ttlMs: 600_000, maxKeys: 2 });
    t.place('a', at('n'));
    t.place('b', at('n'));
    t.place('a', at('n'));
    t.place('c', at('n'));
    assert.equal(t.lookup('b'), null);
    assert.notEqual(t.lookup('a'), null);
    assert.notEqual(t.lookup('c'), null);
  });

  it('forgets a key', () => {
    const t = new AffinityTable({ clock: new ManualClock(), ttlMs: 600_000 });
    t.place('k', at('n'));
    t.forget('k');
    assert.equal(t.lookup('k'), null);
  });
});
