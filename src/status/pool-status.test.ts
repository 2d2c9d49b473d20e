import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { resolvePoolDirections, type PoolDirections, type SwitchInputs } from '../config/kill-switch.js';
import { DEFAULT_SETTINGS, type PoolSettings, type RoutingPin } from '../config/settings-schema.js';
import type { BackendView } from '../engines/types.js';
import type { PeerView } from '../peers/peer-view.js';
import type { UsablePeer } from '../placement/candidates.js';
import { peerViewFixture } from '../peers/peer-view.fixture.js';
import { UNKNOWN_PEER_LOAD } from '../placement/peer-load.js';
import { usablePeerFixture } from '../placement/usable-peer.fixture.js';
import { buildPoolStatus, statusReason, type StatusInputs, type StatusReason } from './pool-status.js';

const ENV_ON: SwitchInputs = { userDisabled: false, outboundDisabled: false, inboundDisabled: false };

function directions(env: Partial<SwitchInputs> = {}, settings: Partial<PoolSettings> = {}): PoolDirections {
  return resolvePoolDirections({ ...ENV_ON, ...env }, { ...DEFAULT_SETTINGS, ...settings });
}

describe('statusReason', () => {
  const rows: readonly { name: string; directions: PoolDirections; peers: number; reason: StatusReason }[] = [
    { name: 'everything on with a connected peer: active', directions: directions(), peers: 1, reason: 'active' },
    { name: 'everything on with no peer: no_peers', directions: directions(), peers: 0, reason: 'no_peers' },
    { name: 'env master off: disabled_by_env', directions: directions({ userDisabled: true }), peers: 2, reason: 'disabled_by_env' },
    { name: 'setting master off: disabled_by_setting', directions: directions({}, { poolEnabled: false }), peers: 2, reason: 'disabled_by_setting' },
    { name: 'both masters off: the env is named', directions: directions({ userDisabled: true }, { poolEnabled: false }), peers: 0, reason: 'disabled_by_env' },
    { name: 'outbound off by env: partially_disabled', directions: directions({ outboundDisabled: true }), peers: 1, reason: 'partially_disabled' },
    { name: 'inbound off by setting: partially_disabled', directions: directions({}, { poolInboundEnabled: false }), peers: 1, reason: 'partially_disabled' },
    {
      name: 'a direction off with no peers still reads partially_disabled',
      directions: directions({ inboundDisabled: true }),
      peers: 0,
      reason: 'partially_disabled',
    },
  ];
  for (const row of rows) {
    it(row.name, () => assert.equal(statusReason(row.directions, row.peers), row.reason));
  }
});

const backend = (backendId: string, models: string[]): BackendView => ({
  backendId,
  kind: 'ollama',
  url: `http://127.0.0.1:11434/${backendId}`,
  running: true,
  healthy: true,
  models: models.map((name) => ({ name, parameterSize: null, capabilities: null, sizeBytes: null })),
  error: null,
  probedMsAgo: 1200,
});

function inputs(extra: Partial<StatusInputs> = {}): StatusInputs {
  return {
    directions: directions(),
    settings: DEFAULT_SETTINGS,
    envMaxPromptTokens: null,
    backends: [],
    inFlight: () => 0,
    peers: [],
    tailnet: { nodeFqdn: null, tailnetSuffix: null, tailscaleConnected: false, source: 'none', tailnetName: null },
    identity: null,
    pairingPin: { active: false, expiresAt: null, expiresInMs: null },
    peerOrigins: new Map(),
    tailscaleAdminApiConfigured: false,
    ...extra,
  };
}

/** A peer row as status sees it, connected and enabled unless overridden. */
function peer(extra: Partial<PeerView> = {}): PeerView {
  return peerViewFixture({ id: 'p1', fingerprint: null, pinVerified: false, createdAt: '2026-11-30T12:00:00.000Z', lastSeenAt: null, ...extra });
}

describe('buildPoolStatus: the prompt ceiling and who set it', () => {
  const rows: readonly { name: string; env: number | null; setting: number | null; ceiling: number | null; setBy: 'env' | 'setting' | null }[] = [
    { name: 'neither set: no ceiling, set by nobody', env: null, setting: null, ceiling: null, setBy: null },
    { name: 'only the setting: the setting, set by setting', env: null, setting: 16_000, ceiling: 16_000, setBy: 'setting' },
    { name: 'only the env: the env, set by env', env: 8192, setting: null, ceiling: 8192, setBy: 'env' },
    { name: 'both: the env overrides the setting', env: 8192, setting: 16_000, ceiling: 8192, setBy: 'env' },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const status = buildPoolStatus(inputs({ envMaxPromptTokens: row.env, settings: { ...DEFAULT_SETTINGS, poolMaxPromptTokens: row.setting } }));
      assert.equal(status.localNode.maxPromptTokens, row.ceiling);
      assert.equal(status.localNode.maxPromptTokensSetBy, row.setBy);
    });
  }
});

describe('buildPoolStatus: the context-cap findings', () => {
  it("reads this Hub's cap from its setting and each peer's from its row", () => {
    const status = buildPoolStatus(
      inputs({
        settings: { ...DEFAULT_SETTINGS, inferenceMaxNumCtx: 16_384 },
        peers: [peer({ nodeFqdn: 'hub-b.tail0.ts.net', backends: [], maxNumCtx: null })],
      }),
    );
    assert.deepEqual(status.contextCaps, {
      nodes: [
        { node: 'local', maxNumCtx: 16_384, known: true },
        { node: 'hub-b.tail0.ts.net', maxNumCtx: null, known: true },
      ],
      caps: [16_384],
      uncapped: ['hub-b.tail0.ts.net'],
    });
  });
});

describe('buildPoolStatus', () => {
  it("sums this node's queue depth over its engines and lists each engine's models", () => {
    const depth: Record<string, number> = { 'ollama-1': 2, 'ollama-2': 3 };
    const status = buildPoolStatus(inputs({ backends: [backend('ollama-1', ['a', 'b']), backend('ollama-2', ['c'])], inFlight: (id) => depth[id] ?? 0 }));
    assert.equal(status.localNode.queueDepth, 5);
    assert.deepEqual(
      status.localNode.backends.map((b) => [b.id, b.inFlight, b.models]),
      [
        ['ollama-1', 2, ['a', 'b']],
        ['ollama-2', 3, ['c']],
      ],
    );
    assert.equal(status.localNode.backends[0]?.probedMsAgo, 1200);
  });

  it('reads routing as active only with outbound on and a connected, enabled peer', () => {
    assert.equal(buildPoolStatus(inputs({ peers: [peer()] })).routingActive, true);
    assert.equal(buildPoolStatus(inputs({ peers: [] })).routingActive, false);
    assert.equal(buildPoolStatus(inputs({ peers: [peer({ status: 'unreachable' })] })).routingActive, false);
    assert.equal(buildPoolStatus(inputs({ peers: [peer({ status: 'pending' })] })).routingActive, false);
    assert.equal(buildPoolStatus(inputs({ peers: [peer({ enabled: false })] })).routingActive, false);
    assert.equal(buildPoolStatus(inputs({ peers: [peer()], directions: directions({ outboundDisabled: true }) })).routingActive, false);
    assert.equal(buildPoolStatus(inputs({ peers: [peer()], directions: directions({}, { poolEnabled: false }) })).routingActive, false);
  });

  it('shows a peer whose snapshot is older than three polls with the mid-load queue the ranker reads, marked stale', () => {
    const stale = usablePeerFixture('hub-b.tail0.ts.net', [{ kind: 'ollama', models: ['m:8b'] }], {
      peerId: 'p1',
      queueDepth: UNKNOWN_PEER_LOAD,
      snapshotStale: true,
    });
    const status = buildPoolStatus(inputs({ peers: [peer()], usablePeers: [stale] }));
    assert.deepEqual([status.peers[0]?.queueDepth, status.peers[0]?.snapshotStale], [UNKNOWN_PEER_LOAD, true]);
    assert.deepEqual(
      status.models.map((m) => [m.model, m.nodes]),
      [['m:8b', ['hub-b.tail0.ts.net']]],
    );
  });

  it('leaves a model a peer says it cannot serve out of what the pool can serve (issue 10 audit)', () => {
    const refusing = usablePeerFixture('hub-b.tail0.ts.net', [{ kind: 'ollama', models: ['ok:8b', 'broken:1b'] }], {
      peerId: 'p1',
      unservableModels: ['broken:1b'],
    });
    const status = buildPoolStatus(inputs({ backends: [], peers: [peer()], usablePeers: [refusing] }));
    assert.deepEqual(
      status.models.map((m) => m.model),
      ['ok:8b'],
    );
  });

  it("reads a peer's unservable names as placement does: a tagless one covers the :latest its engine lists", () => {
    const refusing = usablePeerFixture('hub-b.tail0.ts.net', [{ kind: 'ollama', models: ['qwen3:latest', 'ok:8b'] }], {
      peerId: 'p1',
      unservableModels: ['qwen3'],
    });
    const status = buildPoolStatus(inputs({ backends: [], peers: [peer()], usablePeers: [refusing] }));
    assert.deepEqual(
      status.models.map((m) => m.model),
      ['ok:8b'],
    );
  });

  it("carries every field of a peer's view, in the view's order, then this Hub's live figures", () => {
    const view = peer({ nodeFqdn: 'hub-b.tail0.ts.net' });
    const row = buildPoolStatus(inputs({ peers: [view], forwarded: () => 2 })).peers[0]!;
    assert.deepEqual(Object.keys(row), [...Object.keys(view), 'forwardedInFlight', 'queueDepth', 'snapshotStale', 'loadReported']);
    assert.deepEqual(row, { ...view, forwardedInFlight: 2, queueDepth: null, snapshotStale: null, loadReported: null }, 'no candidate: neither is said');
  });

  it("lists each model's nodes this node first, then by name, each once, whatever order the peers come in", () => {
    const status = buildPoolStatus(
      inputs({
        backends: [backend('ollama-1', ['m:8b'])],
        usablePeers: [
          usablePeerFixture('zeta.ts.net', [{ kind: 'ollama', models: ['m:8b', 'only-zeta:1b'] }]),
          usablePeerFixture('Beta.ts.net', [{ kind: 'ollama', models: ['m:8b'] }]),
          usablePeerFixture('alpha.ts.net', [
            { kind: 'ollama', models: ['m:8b'] },
            { kind: 'vllm', models: ['m:8b'] },
          ]),
        ],
      }),
    );
    assert.deepEqual(
      status.models.map((m) => [m.model, m.nodes, m.singleNode]),
      [
        ['m:8b', ['local', 'alpha.ts.net', 'Beta.ts.net', 'zeta.ts.net'], false],
        ['only-zeta:1b', ['zeta.ts.net'], true],
      ],
    );
  });

  it('names the tailnet the daemon reports, which discovery asks the Admin API about, and null when it reports none', () => {
    const on = buildPoolStatus(
      inputs({
        tailnet: {
          nodeFqdn: 'hub-a.tail0.ts.net',
          tailnetSuffix: 'tail0.ts.net',
          tailscaleConnected: true,
          source: 'tailscale',
          tailnetName: 'alice@example.com',
        },
      }),
    );
    assert.equal(on.localNode.tailnet, 'alice@example.com');
    assert.equal(buildPoolStatus(inputs()).localNode.tailnet, null);
  });

  it('says loudly when the development dial map is in force', () => {
    const status = buildPoolStatus(inputs({ peerOrigins: new Map([['hub-b.tail0.ts.net', 'http://127.0.0.1:5102']]) }));
    assert.deepEqual(status.localNode.peerOriginsMap, { active: true, entries: [{ name: 'hub-b.tail0.ts.net', origin: 'http://127.0.0.1:5102' }] });
    assert.equal(buildPoolStatus(inputs()).localNode.peerOriginsMap.active, false);
  });

  it('reports the switches it was given, direction by direction', () => {
    const status = buildPoolStatus(inputs({ directions: directions({ inboundDisabled: true }) }));
    assert.deepEqual([status.enabled, status.disabledBy, status.reason], [true, null, 'partially_disabled']);
    assert.deepEqual(status.directions, {
      outbound: { enabled: true, disabledBy: null, envLocked: false },
      inbound: { enabled: false, disabledBy: 'env', envLocked: true },
    });
  });

  it("keeps a direction's env lock in view while the master switch has both directions off", () => {
    const status = buildPoolStatus(inputs({ directions: directions({ outboundDisabled: true }, { poolEnabled: false }) }));
    assert.deepEqual([status.enabled, status.disabledBy, status.reason], [false, 'setting', 'disabled_by_setting']);
    assert.deepEqual(status.directions, {
      outbound: { enabled: false, disabledBy: 'setting', envLocked: true },
      inbound: { enabled: false, disabledBy: 'setting', envLocked: false },
    });
  });
});

describe('buildPoolStatus: pins, and whether each would apply now', () => {
  const PEER = 'hub-b.tail0.ts.net';
  const pins: readonly RoutingPin[] = [
    { scope: 'model', model: 'qwen3:8b', target: 'local' },
    { scope: 'model', model: 'org/llama:70b', target: 'Hub-B.tail0.ts.net.' },
    { scope: 'default', model: null, target: 'hub-gone.tail0.ts.net' },
  ];
  const peerB = usablePeerFixture(PEER, [{ kind: 'ollama', models: ['org/llama:70b'] }]);
  const LOCAL_8B = [backend('ollama', ['qwen3:8b'])];
  const rows: readonly {
    name: string;
    backends: readonly BackendView[];
    usable: readonly UsablePeer[] | undefined;
    unservable?: readonly string[];
    available: readonly [boolean, boolean, boolean];
  }[] = [
    {
      name: 'a healthy local engine holding the model and the peer usable and holding its model',
      backends: LOCAL_8B,
      usable: [peerB],
      available: [true, true, false],
    },
    { name: 'no local engine at all', backends: [], usable: [peerB], available: [false, true, false] },
    { name: 'only an unhealthy local engine', backends: [{ ...LOCAL_8B[0]!, healthy: false }], usable: [peerB], available: [false, true, false] },
    {
      name: 'the local engines no longer list the pinned model',
      backends: [backend('ollama', ['other:1b'])],
      usable: [peerB],
      available: [false, true, false],
    },
    {
      name: 'the local engine holding the model is withheld as unable to serve it',
      backends: LOCAL_8B,
      usable: [peerB],
      unservable: ['local|ollama|qwen3:8b'],
      available: [false, true, false],
    },
    { name: 'the peer not usable (down, disabled, stale or outbound off)', backends: LOCAL_8B, usable: [], available: [true, false, false] },
    { name: 'no usable-peer list given: peers read unavailable', backends: LOCAL_8B, usable: undefined, available: [true, false, false] },
    {
      name: 'the peer usable but no longer listing the pinned model',
      backends: LOCAL_8B,
      usable: [usablePeerFixture(PEER, [{ kind: 'ollama', models: ['other:1b'] }])],
      available: [true, false, false],
    },
    {
      name: 'the peer listing the model but saying it cannot serve it',
      backends: LOCAL_8B,
      usable: [{ ...peerB, unservableModels: ['org/llama:70b'] }],
      available: [true, false, false],
    },
    {
      name: 'a default pin at a usable peer applies whatever it holds',
      backends: [],
      usable: [peerB, usablePeerFixture('hub-gone.tail0.ts.net', [])],
      available: [false, true, true],
    },
  ];
  for (const row of rows) {
    it(`${row.name}: targetAvailable ${row.available.join('/')}`, () => {
      const status = buildPoolStatus(
        inputs({
          settings: { ...DEFAULT_SETTINGS, poolPins: pins },
          backends: row.backends,
          ...(row.usable === undefined ? {} : { usablePeers: row.usable }),
          withheld: { outputFaults: [], unservable: (row.unservable ?? []).map((key) => ({ key, until: '2026-11-30T13:00:00.000Z', reason: 'unservable' })) },
        }),
      );
      assert.deepEqual(
        status.pins.map((p) => p.targetAvailable),
        row.available,
      );
    });
  }

  it('reports each pin with its target resolved to a node name', () => {
    const status = buildPoolStatus(inputs({ settings: { ...DEFAULT_SETTINGS, poolPins: pins }, usablePeers: [peerB] }));
    assert.deepEqual(status.pins, [
      { scope: 'model', model: 'qwen3:8b', target: 'local', targetNode: 'local', targetAvailable: false },
      { scope: 'model', model: 'org/llama:70b', target: 'Hub-B.tail0.ts.net.', targetNode: PEER, targetAvailable: true },
      { scope: 'default', model: null, target: 'hub-gone.tail0.ts.net', targetNode: 'hub-gone.tail0.ts.net', targetAvailable: false },
    ]);
  });

  it('no pins: an empty list', () => assert.deepEqual(buildPoolStatus(inputs()).pins, []));
});

describe('buildPoolStatus: models, what the pool can serve', () => {
  it("leaves out a model this node's only engine holding it withholds, as the listings do", () => {
    const status = buildPoolStatus(
      inputs({
        backends: [backend('ollama', ['x:1b', 'y:1b'])],
        withheld: { outputFaults: [], unservable: [{ key: 'local|ollama|x:1b', until: '2026-11-30T13:00:00.000Z', reason: 'unservable' }] },
      }),
    );
    assert.deepEqual(
      status.models.map((m) => m.model),
      ['y:1b'],
    );
  });

  it('keeps a model one engine withholds while another here serves it', () => {
    const status = buildPoolStatus(
      inputs({
        backends: [backend('ollama', ['x:1b']), backend('vllm', ['x:1b'])],
        withheld: { outputFaults: [], unservable: [{ key: 'local|ollama|x:1b', until: '2026-11-30T13:00:00.000Z', reason: 'unservable' }] },
      }),
    );
    assert.deepEqual(status.models, [{ model: 'x:1b', nodes: ['local'], singleNode: true }]);
  });
});

describe('buildPoolStatus: what each engine reports about itself', () => {
  const queue = (over: Partial<NonNullable<BackendView['engineQueue']>>) => ({
    running: null,
    waiting: null,
    slots: null,
    ownInFlightAtReport: 0,
    reportedMsAgo: 400,
    ...over,
  });
  it("shows each engine's own figures, null for those it did not report, and adds other clients' work to the queue depth", () => {
    const backends: BackendView[] = [
      { ...backend('vllm-1', ['m']), kind: 'vllm', engineQueue: queue({ running: 2, waiting: 3, ownInFlightAtReport: 1 }) },
      { ...backend('llamacpp-1', ['m']), kind: 'llamacpp', engineQueue: queue({ running: 1, slots: 4 }) },
      { ...backend('ollama-1', ['m']), engineQueue: queue({}) },
      backend('ollama-2', ['m']),
    ];
    const status = buildPoolStatus(inputs({ backends, inFlight: (id) => (id === 'vllm-1' || id === 'ollama-2' ? 1 : 0) }));
    assert.deepEqual(
      status.localNode.backends.map((b) => [b.id, b.inFlight, b.queueDepth, b.engineReported]),
      [
        ['vllm-1', 1, 5, { running: 2, waiting: 3, slots: null, beyondThisHub: 4, reportedMsAgo: 400 }],
        ['llamacpp-1', 0, 1, { running: 1, waiting: null, slots: 4, beyondThisHub: 1, reportedMsAgo: 400 }],
        ['ollama-1', 0, 0, { running: null, waiting: null, slots: null, beyondThisHub: null, reportedMsAgo: 400 }],
        ['ollama-2', 1, 1, null],
      ],
    );
    assert.equal(status.localNode.queueDepth, 7, "this node's queue depth counts what its engines reported beyond this Hub's own requests");
  });
});
