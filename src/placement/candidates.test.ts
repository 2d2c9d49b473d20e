import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { EngineKind } from '../engines/engine-kind.js';
import type { BackendView, ProxyDialect } from '../engines/types.js';
import { localCandidates, peerCandidates, type UsablePeer } from './candidates.js';
import { UNKNOWN_PRESSURE } from './peer-load.js';
import { usablePeerFixture } from './usable-peer.fixture.js';
import { backendViewFixture } from '../engines/backend-view.fixture.js';

function backend(backendId: string, kind: EngineKind, models: readonly string[], health: Partial<BackendView> = {}): BackendView {
  return backendViewFixture(models, { backendId, kind, url: `http://127.0.0.1/${backendId}`, ...health });
}

const noneInFlight = () => 0;

interface Row {
  readonly name: string;
  readonly backends: readonly BackendView[];
  readonly model: string;
  readonly dialect: ProxyDialect;
  readonly ids: readonly string[];
}

describe('localCandidates', () => {
  const rows: readonly Row[] = [
    {
      name: 'includes a healthy engine that holds the model',
      backends: [backend('ollama', 'ollama', ['qwen3:8b'])],
      model: 'qwen3:8b',
      dialect: 'ollama',
      ids: ['local/ollama'],
    },
    {
      name: 'excludes an engine that is running but unhealthy',
      backends: [backend('vllm', 'vllm', ['qwen3:8b'], { healthy: false, error: 'names itself omlx' }), backend('ollama', 'ollama', ['qwen3:8b'])],
      model: 'qwen3:8b',
      dialect: 'openai',
      ids: ['local/ollama'],
    },
    {
      name: 'excludes an engine that is down',
      backends: [backend('ollama', 'ollama', ['qwen3:8b'], { running: false, healthy: false, error: 'fetch failed (ECONNREFUSED)' })],
      model: 'qwen3:8b',
      dialect: 'ollama',
      ids: [],
    },
    {
      name: 'excludes an engine without the model',
      backends: [backend('ollama', 'ollama', ['llama3.2:3b']), backend('vllm', 'vllm', ['qwen3:8b'])],
      model: 'qwen3:8b',
      dialect: 'openai',
      ids: ['local/vllm'],
    },
    {
      name: 'matches the model id exactly, case included',
      backends: [backend('ollama', 'ollama', ['Qwen3:8b', 'qwen3:8b-instruct'])],
      model: 'qwen3:8b',
      dialect: 'ollama',
      ids: [],
    },
    {
      name: 'takes an untagged name to mean :latest on Ollama, as Ollama does',
      backends: [backend('ollama', 'ollama', ['nomic-embed-text:latest'])],
      model: 'nomic-embed-text',
      dialect: 'ollama',
      ids: ['local/ollama'],
    },
    {
      name: 'does not stretch :latest to engines that name models by id',
      backends: [backend('vllm', 'vllm', ['my-model:latest'])],
      model: 'my-model',
      dialect: 'openai',
      ids: [],
    },
    {
      name: 'does not read a tagged name as :latest',
      backends: [backend('ollama', 'ollama', ['qwen3:latest'])],
      model: 'qwen3:8b',
      dialect: 'ollama',
      ids: [],
    },
    {
      name: 'does not add :latest to a name that already has a tag',
      backends: [backend('ollama', 'ollama', ['qwen3:8b:latest'])],
      model: 'qwen3:8b',
      dialect: 'ollama',
      ids: [],
    },
    {
      name: "reads a ':' before the last '/' as the registry's port, not a tag",
      backends: [backend('ollama', 'ollama', ['registry.lan:5000/team/embed:latest'])],
      model: 'registry.lan:5000/team/embed',
      dialect: 'ollama',
      ids: ['local/ollama'],
    },
    {
      name: 'excludes a vLLM for /api/chat: it does not speak the native dialect',
      backends: [backend('vllm', 'vllm', ['qwen3:8b']), backend('ollama', 'ollama', ['qwen3:8b'])],
      model: 'qwen3:8b',
      dialect: 'ollama',
      ids: ['local/ollama'],
    },
    {
      name: 'excludes every OpenAI-only engine from the native dialect',
      backends: (['vllm', 'lemonade', 'omlx', 'llamacpp'] as const).map((k) => backend(k, k, ['m'])),
      model: 'm',
      dialect: 'ollama',
      ids: [],
    },
    {
      name: 'includes both Ollama and the OpenAI-compatible engines for /v1, in configured order',
      backends: [backend('vllm', 'vllm', ['m']), backend('ollama', 'ollama', ['m']), backend('lemonade', 'lemonade', ['m'])],
      model: 'm',
      dialect: 'openai',
      ids: ['local/vllm', 'local/ollama', 'local/lemonade'],
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      assert.deepEqual(
        localCandidates(row.backends, row.model, row.dialect, noneInFlight).map((c) => c.id),
        row.ids,
      );
    });
  }

  it('fills each candidate from its engine and reads its queue depth from the in-flight counter', () => {
    const depths: Record<string, number> = { 'ollama-1': 3, 'ollama-2': 0 };
    const got = localCandidates([backend('ollama-1', 'ollama', ['m']), backend('ollama-2', 'ollama', ['m'])], 'm', 'ollama', (id) => depths[id] ?? -1);
    assert.deepEqual(got, [
      {
        id: 'local/ollama-1',
        node: 'local',
        backendId: 'ollama-1',
        engine: 'ollama',
        url: 'http://127.0.0.1/ollama-1',
        queueDepth: 3,
        loadReported: true,
        peerId: null,
        hardwareTier: null,
        pressure: UNKNOWN_PRESSURE,
      },
      {
        id: 'local/ollama-2',
        node: 'local',
        backendId: 'ollama-2',
        engine: 'ollama',
        url: 'http://127.0.0.1/ollama-2',
        queueDepth: 0,
        loadReported: true,
        peerId: null,
        hardwareTier: null,
        pressure: UNKNOWN_PRESSURE,
      },
    ]);
  });

  const pressureRows: readonly { name: string; own: number | null; pressure: number }[] = [
    { name: 'a node without a band of its own reads mid-band, never idle', own: null, pressure: UNKNOWN_PRESSURE },
    { name: 'a node that measured an idle GPU reads 0', own: 0, pressure: 0 },
    { name: 'a node that measured a committed GPU reads 3', own: 3, pressure: 3 },
  ];
  for (const r of pressureRows) {
    it(`${r.name} (own band ${String(r.own)})`, () => {
      const got = localCandidates([backend('ollama-1', 'ollama', ['m'])], 'm', 'ollama', noneInFlight, () => false, r.own);
      assert.deepEqual(
        got.map((c) => c.pressure),
        [r.pressure],
      );
    });
  }
});

describe('peerCandidates', () => {
  const peer = (name: string, backends: UsablePeer['backends'], extra: Partial<UsablePeer> = {}): UsablePeer =>
    usablePeerFixture(name, backends, { peerId: `id-${name}`, origin: `http://127.0.0.1/${name}`, ...extra });
  const rows: readonly { name: string; peers: readonly UsablePeer[]; model: string; dialect: 'openai' | 'ollama'; nodes: readonly string[] }[] = [
    {
      name: 'a peer holding the model in any engine serves the OpenAI dialect',
      peers: [peer('b.ts.net', [{ kind: 'vllm', models: ['m'] }])],
      model: 'm',
      dialect: 'openai',
      nodes: ['b.ts.net'],
    },
    {
      name: 'a peer whose only holder is vLLM is no candidate for a native request',
      peers: [peer('b.ts.net', [{ kind: 'vllm', models: ['m'] }])],
      model: 'm',
      dialect: 'ollama',
      nodes: [],
    },
    {
      name: "a tagless name matches Ollama's :latest on a peer too",
      peers: [peer('b.ts.net', [{ kind: 'ollama', models: ['m:latest'] }])],
      model: 'm',
      dialect: 'ollama',
      nodes: ['b.ts.net'],
    },
    {
      name: 'a model the peer says it cannot serve is no candidate there',
      peers: [peer('b.ts.net', [{ kind: 'ollama', models: ['m'] }], { unservableModels: ['m'] }), peer('c.ts.net', [{ kind: 'ollama', models: ['m'] }])],
      model: 'm',
      dialect: 'openai',
      nodes: ['c.ts.net'],
    },
    {
      name: "a tagless request is no candidate on a peer that says it cannot serve the model's :latest",
      peers: [
        peer('b.ts.net', [{ kind: 'ollama', models: ['m:latest'] }], { unservableModels: ['m:latest'] }),
        peer('c.ts.net', [{ kind: 'ollama', models: ['m:latest'] }]),
      ],
      model: 'm',
      dialect: 'ollama',
      nodes: ['c.ts.net'],
    },
    {
      name: 'a request for :latest is no candidate on a peer (an older build) that names the model without its tag',
      peers: [
        peer('b.ts.net', [{ kind: 'ollama', models: ['m:latest'] }], { unservableModels: ['m'] }),
        peer('c.ts.net', [{ kind: 'ollama', models: ['m:latest'] }]),
      ],
      model: 'm:latest',
      dialect: 'ollama',
      nodes: ['c.ts.net'],
    },
    {
      name: 'another tag of the model the peer cannot serve is still a candidate there',
      peers: [peer('b.ts.net', [{ kind: 'ollama', models: ['m:latest', 'm:8b'] }], { unservableModels: ['m:latest'] })],
      model: 'm:8b',
      dialect: 'ollama',
      nodes: ['b.ts.net'],
    },
    {
      name: 'one engine holding the model is enough, beside engines that hold others',
      peers: [
        peer('b.ts.net', [
          { kind: 'vllm', models: ['other'] },
          { kind: 'ollama', models: ['m', 'n'] },
        ]),
      ],
      model: 'm',
      dialect: 'ollama',
      nodes: ['b.ts.net'],
    },
    {
      name: 'an engine kind this Hub does not know offers nothing',
      peers: [peer('b.ts.net', [{ kind: 'mystery', models: ['m'] }])],
      model: 'm',
      dialect: 'openai',
      nodes: [],
    },
  ];
  it("names each peer's candidate by the peer: one id per peer, never shared", () =>
    assert.deepEqual(
      peerCandidates([peer('b.ts.net', [{ kind: 'ollama', models: ['m'] }]), peer('c.ts.net', [{ kind: 'ollama', models: ['m'] }])], 'm', 'openai').map(
        (c) => c.id,
      ),
      ['b.ts.net/pool', 'c.ts.net/pool'],
    ));
  it('carries whether the peer reported its load, an absent flag read as reported', () => {
    const holds = [{ kind: 'ollama', models: ['m'] }];
    const stood = { ...peer('c.ts.net', holds), queueDepth: 2, loadReported: false };
    assert.deepEqual(
      peerCandidates([peer('b.ts.net', holds), stood], 'm', 'openai').map((c) => [c.node, c.queueDepth, c.loadReported]),
      [
        ['b.ts.net', 0, true],
        ['c.ts.net', 2, false],
      ],
    );
  });
  it("keeps each peer's id by name: a rename, or more names than are kept, still names each by its own", () => {
    const idOf = (name: string) => peerCandidates([peer(name, [{ kind: 'ollama', models: ['m'] }])], 'm', 'openai')[0]?.id;
    assert.equal(idOf('b.ts.net'), 'b.ts.net/pool');
    assert.equal(idOf('b2.ts.net'), 'b2.ts.net/pool');
    for (let i = 0; i < 5000; i++) assert.equal(idOf(`n${i}.ts.net`), `n${i}.ts.net/pool`);
    assert.equal(idOf('b.ts.net'), 'b.ts.net/pool');
  });
  for (const r of rows)
    it(r.name, () =>
      assert.deepEqual(
        peerCandidates(r.peers, r.model, r.dialect).map((c) => c.node),
        r.nodes,
      ),
    );
});

describe('localCandidates: unservable models', () => {
  it('leaves out an engine that has been unable to serve the model, and only that engine', () => {
    const view = (backendId: string): BackendView => backendViewFixture(['m'], { backendId, url: 'http://127.0.0.1' });
    const ids = localCandidates(
      [view('ollama-1'), view('ollama-2')],
      'm',
      'ollama',
      () => 0,
      (b) => b.backendId === 'ollama-1',
    ).map((c) => c.backendId);
    assert.deepEqual(ids, ['ollama-2']);
  });
});

describe("localCandidates: an engine's own queue report", () => {
  const reported = (running: number | null, waiting: number | null, ownInFlightAtReport: number) => ({
    engineQueue: { running, waiting, slots: null, ownInFlightAtReport, reportedMsAgo: 0 },
  });
  it("adds other clients' requests the engine reported to the proxy's own count", () => {
    const got = localCandidates([backend('vllm', 'vllm', ['m'], reported(1, 3, 0)), backend('ollama', 'ollama', ['m'])], 'm', 'openai', (id) =>
      id === 'ollama' ? 1 : 0,
    );
    assert.deepEqual(
      got.map((c) => [c.backendId, c.queueDepth]),
      [
        ['vllm', 4],
        ['ollama', 1],
      ],
    );
  });
  it("does not count this Hub's own requests twice when the engine reports them too", () => {
    const got = localCandidates([backend('vllm', 'vllm', ['m'], reported(2, 0, 2))], 'm', 'openai', () => 2);
    assert.equal(got[0]?.queueDepth, 2);
  });
});
