import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { PeerView } from '../peers/peer-view.js';
import { peerViewFixture } from '../peers/peer-view.fixture.js';
import { contextCapFindings, type ContextCapFindings } from './context-caps.js';

/** A connected peer that has answered its health checks, with the cap it advertises. */
const peer = (nodeFqdn: string, maxNumCtx: number | null, over: Partial<PeerView> = {}): PeerView =>
  peerViewFixture({ nodeFqdn, backends: [{ kind: 'ollama', models: ['qwen3:8b'] }], maxNumCtx, ...over });
/** A peer just approved, before its first snapshot: nothing known of it. */
const unpolled = (nodeFqdn: string, over: Partial<PeerView> = {}): PeerView => peer(nodeFqdn, null, { backends: null, acceptingWork: null, ...over });

const HERE = { node: 'local', maxNumCtx: null, known: true } as const;
const here = (maxNumCtx: number | null) => ({ ...HERE, maxNumCtx });

describe('contextCapFindings: this Hub and its connected peers, the caps they state and who states none among them', () => {
  const rows: readonly { name: string; local: number | null; peers: PeerView[]; expect: ContextCapFindings }[] = [
    {
      name: 'no node capped: no caps, and so nobody uncapped',
      local: null,
      peers: [peer('hub-b', null)],
      expect: { nodes: [HERE, { node: 'hub-b', maxNumCtx: null, known: true }], caps: [], uncapped: [] },
    },
    {
      name: 'this Hub capped and a connected peer naming none: the peer is uncapped',
      local: 16_384,
      peers: [peer('hub-b', null)],
      expect: { nodes: [here(16_384), { node: 'hub-b', maxNumCtx: null, known: true }], caps: [16_384], uncapped: ['hub-b'] },
    },
    {
      name: 'this Hub naming none and a peer capped: this Hub is uncapped',
      local: null,
      peers: [peer('hub-b', 65_536)],
      expect: { nodes: [HERE, { node: 'hub-b', maxNumCtx: 65_536, known: true }], caps: [65_536], uncapped: ['local'] },
    },
    {
      name: 'caps that differ are listed smallest first, and nobody is uncapped',
      local: 65_536,
      peers: [peer('hub-b', 16_384)],
      expect: { nodes: [here(65_536), { node: 'hub-b', maxNumCtx: 16_384, known: true }], caps: [16_384, 65_536], uncapped: [] },
    },
    {
      name: 'the same cap on two nodes is one cap',
      local: 16_384,
      peers: [peer('hub-b', 16_384)],
      expect: { nodes: [here(16_384), { node: 'hub-b', maxNumCtx: 16_384, known: true }], caps: [16_384], uncapped: [] },
    },
    {
      name: 'a peer not polled yet is read as not known, neither capped nor uncapped',
      local: 16_384,
      peers: [unpolled('hub-b')],
      expect: { nodes: [here(16_384), { node: 'hub-b', maxNumCtx: null, known: false }], caps: [16_384], uncapped: [] },
    },
    {
      name: 'a peer not polled yet beside an uncapped Hub: nothing is capped, so nothing is found',
      local: null,
      peers: [unpolled('hub-b')],
      expect: { nodes: [HERE, { node: 'hub-b', maxNumCtx: null, known: false }], caps: [], uncapped: [] },
    },
    {
      name: 'a peer not polled yet counts for no cap, whatever figure its row carries',
      local: null,
      peers: [unpolled('hub-b', { maxNumCtx: 8_192 })],
      expect: { nodes: [HERE, { node: 'hub-b', maxNumCtx: null, known: false }], caps: [], uncapped: [] },
    },
    {
      name: 'a peer that is not connected is left out',
      local: 16_384,
      peers: [peer('hub-b', null, { status: 'unreachable' }), peer('hub-c', 8_192, { status: 'pending' })],
      expect: { nodes: [here(16_384)], caps: [16_384], uncapped: [] },
    },
    {
      name: 'every uncapped node is named, this Hub first, then the peers in status order',
      local: null,
      peers: [peer('hub-c', null), peer('hub-b', 32_768), peer('hub-a', null)],
      expect: {
        nodes: [
          HERE,
          { node: 'hub-c', maxNumCtx: null, known: true },
          { node: 'hub-b', maxNumCtx: 32_768, known: true },
          { node: 'hub-a', maxNumCtx: null, known: true },
        ],
        caps: [32_768],
        uncapped: ['local', 'hub-c', 'hub-a'],
      },
    },
    {
      name: 'peerless: this Hub alone is never uncapped among capped ones',
      local: 16_384,
      peers: [],
      expect: { nodes: [here(16_384)], caps: [16_384], uncapped: [] },
    },
  ];
  for (const r of rows) {
    it(r.name, () => assert.deepEqual(contextCapFindings(r.local, r.peers), r.expect));
  }
});
