import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { BackendView } from '../engines/types.js';
import type { UsablePeer } from './candidates.js';
import { usablePeerFixture } from './usable-peer.fixture.js';
import { windowHandout } from './handout.js';
import { backendViewFixture } from '../engines/backend-view.fixture.js';

const ollama = (models: string[]): BackendView => backendViewFixture(models);
const peer = (name: string, models: string[], maxNumCtx: number | null): UsablePeer =>
  usablePeerFixture(name, [{ kind: 'ollama', models }], { origin: `http://${name}`, maxNumCtx });
const M = 'qwen3-coder:30b';

describe('windowHandout: the largest cap among the nodes serving the model, none when any is uncapped', () => {
  const rows: readonly { name: string; local: { models: string[]; cap: number | null }; peers: UsablePeer[]; numCtx: number | null; nodes: string[] }[] = [
    {
      name: 'the 2026-09-21 incident: core-2 uncapped and core-17 at 16384 hand no cap (not 16384)',
      local: { models: [M], cap: null },
      peers: [peer('core-17', [M], 16_384)],
      numCtx: null,
      nodes: ['local', 'core-17'],
    },
    {
      name: 'core-2 capped 65536 beside core-17 at 16384 hands the largest, 65536',
      local: { models: [M], cap: 65_536 },
      peers: [peer('core-17', [M], 16_384)],
      numCtx: 65_536,
      nodes: ['local', 'core-17'],
    },
    {
      name: 'a node serving another model does not count',
      local: { models: [M], cap: 16_384 },
      peers: [peer('core-9', ['other:8b'], 131_072)],
      numCtx: 16_384,
      nodes: ['local'],
    },
    {
      name: 'an uncapped node serving another model does not lift the cap',
      local: { models: [M], cap: 16_384 },
      peers: [peer('core-9', ['other:8b'], null)],
      numCtx: 16_384,
      nodes: ['local'],
    },
    { name: "peerless: this node's own cap applies", local: { models: [M], cap: 32_768 }, peers: [], numCtx: 32_768, nodes: ['local'] },
    {
      name: 'the model only on peers: the largest of theirs',
      local: { models: [], cap: 4096 },
      peers: [peer('a', [M], 16_384), peer('b', [M], 32_768)],
      numCtx: 32_768,
      nodes: ['a', 'b'],
    },
    { name: 'nobody serves it: no nodes and no cap', local: { models: [], cap: 4096 }, peers: [], numCtx: null, nodes: [] },
  ];
  for (const r of rows) {
    it(r.name, () => {
      const out = windowHandout(M, { backends: [ollama(r.local.models)], maxNumCtx: r.local.cap }, r.peers);
      assert.equal(out.numCtx, r.numCtx);
      assert.deepEqual(
        out.nodes.map((n) => n.node),
        r.nodes,
      );
    });
  }
});

describe('windowHandout counts nodes whose only holder speaks no native dialect', () => {
  it('a vLLM on this node and on a peer both serve the model', () => {
    const vllm = { ...ollama([M]), backendId: 'vllm', kind: 'vllm' } as BackendView;
    const vllmPeer: UsablePeer = { ...peer('core-9', [M], 8192), backends: [{ kind: 'vllm', models: [M] }] };
    assert.deepEqual(windowHandout(M, { backends: [vllm], maxNumCtx: 32_768 }, [vllmPeer]), {
      model: M,
      numCtx: 32_768,
      nodes: [
        { node: 'local', maxNumCtx: 32_768 },
        { node: 'core-9', maxNumCtx: 8192 },
      ],
    });
  });
});

describe('windowHandout leaves out a node that cannot serve the model now', () => {
  it('a local engine withholding the model does not count, as a peer naming it unservable does not', () => {
    const withholding = (b: { readonly backendId: string }, model: string) => b.backendId === ollama([M]).backendId && model === M;
    const refusing: UsablePeer = { ...peer('core-9', [M], null), unservableModels: [M] };
    assert.deepEqual(windowHandout(M, { backends: [ollama([M])], maxNumCtx: null, unservable: withholding }, [refusing, peer('core-17', [M], 16_384)]), {
      model: M,
      numCtx: 16_384,
      nodes: [{ node: 'core-17', maxNumCtx: 16_384 }],
    });
  });

  it('the same engine serving another model still counts for this one', () => {
    const withholdingOther = (_b: unknown, model: string) => model === 'other:8b';
    assert.deepEqual(windowHandout(M, { backends: [ollama([M, 'other:8b'])], maxNumCtx: 32_768, unservable: withholdingOther }, []).nodes, [
      { node: 'local', maxNumCtx: 32_768 },
    ]);
  });
});
