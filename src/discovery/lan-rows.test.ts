import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LanHeard } from './lan-announcement.js';
import { lanRows, MAX_LAN_ROWS, type LanRowsInput } from './lan-rows.js';

function heard(label: string, over: Partial<LanHeard> = {}): LanHeard {
  return {
    instance: `${label}-1._cihub._tcp.local`,
    id: `id${label}`,
    hostLabel: label,
    claimedName: `${label}.tail0.ts.net`,
    address: '192.168.1.20',
    port: 5002,
    ...over,
  };
}

const BASE: Omit<LanRowsInput, 'heard'> = { ownId: 'idself', selfName: 'self.tail0.ts.net', tailnetNames: new Set(), held: new Set() };

describe('LAN rows', () => {
  it('marks every row unverified, from mDNS, with the address it came from', () => {
    const { rows } = lanRows({ ...BASE, heard: [heard('studio')] });
    assert.deepEqual(rows, [
      { source: 'mdns', verified: false, displayName: 'studio', claimedName: 'studio.tail0.ts.net', address: '192.168.1.20', port: 5002 },
    ]);
  });

  it('drops a Hub the tailnet also names: the tailnet entry wins, and the drop is counted', () => {
    const result = lanRows({ ...BASE, tailnetNames: new Set(['studio.tail0.ts.net']), heard: [heard('studio'), heard('nas')] });
    assert.deepEqual(
      result.rows.map((r) => r.displayName),
      ['nas'],
    );
    assert.equal(result.coveredByTailnet, 1);
  });

  it('drops names this Hub already holds a row for', () => {
    const result = lanRows({ ...BASE, held: new Set(['nas.tail0.ts.net']), heard: [heard('nas')] });
    assert.deepEqual(result.rows, []);
    assert.equal(result.coveredByTailnet, 1);
  });

  it('drops this Hub itself, by its announcement id and by its name', () => {
    const { rows } = lanRows({ ...BASE, heard: [heard('self', { id: 'idself', claimedName: null }), heard('self2', { claimedName: 'self.tail0.ts.net' })] });
    assert.deepEqual(rows, []);
  });

  it('lists a repeated instance or a repeated claimed name once, the first heard', () => {
    const { rows } = lanRows({
      ...BASE,
      heard: [heard('nas'), heard('nas', { address: '192.168.1.99' }), heard('nas', { instance: 'nas-2._cihub._tcp.local', address: '192.168.1.77' })],
    });
    assert.deepEqual(
      rows.map((r) => r.address),
      ['192.168.1.20'],
    );
  });

  it('names a row by its host label, then its instance, when it claims no name', () => {
    const { rows } = lanRows({
      ...BASE,
      heard: [heard('box', { claimedName: null }), heard('bare', { claimedName: null, hostLabel: null, instance: 'bare-9._cihub._tcp.local' })],
    });
    assert.deepEqual(
      rows.map((r) => r.displayName),
      ['bare-9', 'box'],
    );
  });

  it('lists at most MAX_LAN_ROWS and counts the rest', () => {
    const many = Array.from({ length: MAX_LAN_ROWS + 5 }, (_, i) => heard(`h${i}`));
    const result = lanRows({ ...BASE, heard: many });
    assert.equal(result.rows.length, MAX_LAN_ROWS);
    assert.equal(result.notListed, 5);
  });
});
