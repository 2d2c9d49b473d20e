import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TailnetDevice } from '../tailnet/tailscale-status.js';
import { mergeCandidates, type MergeInput } from './merge.js';

const dev = (nodeFqdn: string, more: Partial<TailnetDevice> = {}): TailnetDevice => ({
  nodeFqdn,
  hostName: null,
  os: null,
  online: null,
  deviceId: null,
  ...more,
});
const base: MergeInput = { daemon: [], adminApi: [], portal: [], paired: new Set(), selfName: 'me.tail0.ts.net', tailnetSuffix: 'tail0.ts.net' };

describe('mergeCandidates', () => {
  it('a node two directories name is offered once; the daemon entry wins and the Admin API fills only what it left out', () => {
    const { candidates } = mergeCandidates({
      ...base,
      daemon: [dev('hub-b.tail0.ts.net', { os: 'linux', online: true })],
      adminApi: [dev('hub-b.tail0.ts.net', { os: 'windows', online: false, deviceId: 'nB' })],
    });
    assert.deepEqual(candidates, [dev('hub-b.tail0.ts.net', { os: 'linux', online: true, deviceId: 'nB' })]);
  });

  it('a Portal entry never overrides the tailnet one: it lends only its device id', () => {
    const { candidates } = mergeCandidates({
      ...base,
      adminApi: [dev('hub-b.tail0.ts.net', { os: 'linux' })],
      portal: [dev('hub-b.tail0.ts.net', { os: 'plan9', online: true, deviceId: 'portal-7' })],
    });
    assert.deepEqual(candidates, [dev('hub-b.tail0.ts.net', { os: 'linux', deviceId: 'portal-7' })]);
  });

  it('a node only Portal names carries source portal; a tailnet one carries no source', () => {
    const { candidates } = mergeCandidates({ ...base, daemon: [dev('a.tail0.ts.net')], portal: [dev('p.tail0.ts.net')] });
    assert.deepEqual(
      candidates.map((c) => [c.nodeFqdn, c.source ?? null]),
      [
        ['a.tail0.ts.net', null],
        ['p.tail0.ts.net', 'portal'],
      ],
    );
  });

  const exclusions: { name: string; input: Partial<MergeInput>; offered: string[]; excludedPaired: number }[] = [
    { name: 'this node is never offered', input: { daemon: [dev('me.tail0.ts.net'), dev('b.tail0.ts.net')] }, offered: ['b.tail0.ts.net'], excludedPaired: 0 },
    {
      name: 'names this Hub holds a row for are dropped before probing, and counted',
      input: {
        daemon: [dev('b.tail0.ts.net'), dev('c.tail0.ts.net')],
        adminApi: [dev('d.tail0.ts.net')],
        paired: new Set(['c.tail0.ts.net', 'd.tail0.ts.net']),
      },
      offered: ['b.tail0.ts.net'],
      excludedPaired: 2,
    },
    {
      name: 'a name outside this tailnet is not offered',
      input: { adminApi: [dev('b.tail0.ts.net'), dev('x.other.ts.net')] },
      offered: ['b.tail0.ts.net'],
      excludedPaired: 0,
    },
    {
      name: 'with no known tailnet, any name is offered',
      input: { tailnetSuffix: null, adminApi: [dev('x.other.ts.net')] },
      offered: ['x.other.ts.net'],
      excludedPaired: 0,
    },
    {
      name: "sorted by name whatever the directories' order",
      input: { daemon: [dev('z.tail0.ts.net'), dev('a.tail0.ts.net')], adminApi: [dev('m.tail0.ts.net')] },
      offered: ['a.tail0.ts.net', 'm.tail0.ts.net', 'z.tail0.ts.net'],
      excludedPaired: 0,
    },
  ];
  for (const c of exclusions) {
    it(c.name, () => {
      const result = mergeCandidates({ ...base, ...c.input });
      assert.deepEqual(
        result.candidates.map((x) => x.nodeFqdn),
        c.offered,
      );
      assert.equal(result.excludedPaired, c.excludedPaired);
    });
  }
});
