import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { resolvePoolDirections } from '../../config/kill-switch.js';
import { DEFAULT_SETTINGS } from '../../config/settings-schema.js';
import type { BackendView } from '../../engines/types.js';
import type { PeerView } from '../../peers/peer-view.js';
import type { RoutingLogSummary } from '../../routing-log/entry.js';
import { probeFailureAction } from '../../peers/probe-failure.js';
import { buildPoolStatus, type PoolStatus, type StatusInputs } from '../../status/pool-status.js';
import { statusInputs } from '../../status/status-inputs.fixture.js';
import { peerViewFixture } from '../../peers/peer-view.fixture.js';
import { UNKNOWN_PEER_LOAD } from '../../placement/peer-load.js';
import { usablePeerFixture } from '../../placement/usable-peer.fixture.js';
import { containersText, renderPoolStatus } from './pool-status.js';

const NOW = Date.parse('2026-11-30T12:00:00.000Z');
const SELF = 'hub-a.tail0.ts.net';
const PEER = 'hub-b.tail0.ts.net';
const FP = '3f1c:9a0b:0000:1111:2222:3333:4444:5555';

const backend = (backendId: 'ollama' | 'vllm', models: string[], healthy = true): BackendView => ({
  backendId,
  kind: backendId,
  url: `http://127.0.0.1:11434/${backendId}`,
  running: true,
  healthy,
  models: models.map((name) => ({ name, parameterSize: null, capabilities: null, sizeBytes: null })),
  error: null,
  probedMsAgo: 1200,
});

function status(extra: Partial<StatusInputs> = {}): PoolStatus {
  return buildPoolStatus(
    statusInputs({
      backends: [backend('ollama', ['qwen3:8b', 'llama3.2:3b'])],
      tailnet: { nodeFqdn: SELF, tailnetSuffix: 'tail0.ts.net', tailscaleConnected: true, source: 'tailscale', tailnetName: 'alice@example.com' },
      identity: { nodeUuid: '11111111-2222-3333-4444-555555555555', fingerprint: FP, identityError: null, identityCause: null },
      ...extra,
    }),
  );
}

function peer(extra: Partial<PeerView> = {}): PeerView {
  return peerViewFixture({
    nodeFqdn: PEER,
    lastSeenAt: '2026-11-30T11:59:50.000Z',
    backends: [{ kind: 'vllm', models: ['qwen3:8b', 'Qwen/Qwen3-4B'] }],
    ...extra,
  });
}

const render = (s: PoolStatus): string => renderPoolStatus(s, null, { nowMs: NOW });

/** Status as the Hub builds it when placement can use these peers: each gets the queue depth the ranker reads. */
function usable(s: PoolStatus, names: readonly string[] = s.peers.map((p) => p.nodeFqdn)): PoolStatus {
  return { ...s, peers: s.peers.map((p) => (names.includes(p.nodeFqdn) ? { ...p, queueDepth: 0 } : p)) };
}

/** The lines under a block heading, up to the next blank line. */
function block(text: string, heading: string): string[] {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l === heading || l.startsWith(`${heading} (`));
  if (start < 0) return [];
  const end = lines.findIndex((l, i) => i > start && l === '');
  return lines.slice(start + 1, end < 0 ? undefined : end);
}

interface Case {
  readonly name: string;
  readonly status: PoolStatus;
  readonly includes?: readonly (string | RegExp)[];
  readonly excludes?: readonly (string | RegExp)[];
  readonly check?: (text: string) => void;
}

const refusing = (kind: 'identity_changed' | 'unauthorized'): PeerView =>
  peer({
    status: 'unreachable',
    consecutiveFailures: 1,
    probeFailure: { kind, since: '2026-11-30T11:58:00.000Z', action: probeFailureAction(kind, PEER, SELF) },
  });

const CASES: readonly Case[] = [
  {
    name: 'an engine no probe has answered yet is neither down nor empty: its health and models are unknown',
    status: status({ backends: [{ ...backend('ollama', []), running: false, healthy: false, probedMsAgo: null }] }),
    includes: [/^ {2}ollama\s+http:\/\/127\.0\.0\.1:11434\/ollama\s+not known yet\s+not probed yet\s+0 in flight\s+models not known yet/m],
    excludes: [/ollama .* down /, '0 models'],
  },
  {
    name: 'an engine probed and found down says so, with its models as probed',
    status: status({ backends: [{ ...backend('ollama', []), running: false, healthy: false }] }),
    includes: [/^ {2}ollama\s+\S+\s+down\s+probed 1s ago\s+0 in flight\s+0 models/m],
  },
  {
    name: "with Hub Pool off by its setting, a direction's own env flag is named as what keeps it off once the pool is back on",
    status: status({
      directions: resolvePoolDirections({ userDisabled: false, outboundDisabled: true, inboundDisabled: false }, { ...DEFAULT_SETTINGS, poolEnabled: false }),
    }),
    includes: [
      'sending work to peers off (by the setting; HUB_POOL_OUTBOUND_DISABLED=true in the environment keeps it off once Hub Pool is back on) · serving peers off (by the setting)',
    ],
    excludes: ['HUB_POOL_INBOUND_DISABLED'],
  },
  {
    name: 'with Hub Pool on, a direction its env flag holds off says so once',
    status: status({ directions: resolvePoolDirections({ userDisabled: false, outboundDisabled: false, inboundDisabled: true }, DEFAULT_SETTINGS) }),
    includes: ['sending work to peers on · serving peers off (by the environment)'],
    excludes: ['HUB_POOL_INBOUND_DISABLED', 'HUB_POOL_OUTBOUND_DISABLED'],
  },
  {
    name: 'a single-node Hub keeps its old shape: no peers, no one-node marks',
    status: status({ tailnet: { nodeFqdn: null, tailnetSuffix: null, tailscaleConnected: false, source: 'none', tailnetName: null }, identity: null }),
    includes: ['Peers: none paired', /qwen3:8b\s+local \(ollama\)$/m, 'not made yet', 'none: not on a tailnet', /pairing PIN\s+none active/],
    excludes: ['⚠', 'Peers refusing this Hub', 'routing is active', 'HUB_POOL_PEER_ORIGINS'],
  },
  {
    name: 'this node: name, tailnet from Tailscale, fingerprint and node UUID',
    status: status(),
    includes: [
      /name\s+hub-a\.tail0\.ts\.net/,
      /tailnet\s+tail0\.ts\.net \(from Tailscale, connected\)/,
      `fingerprint     ${FP}`,
      /node UUID\s+11111111-2222-3333-4444-555555555555/,
    ],
    excludes: ['UNUSABLE'],
  },
  {
    name: 'a name from HUB_NODE_FQDN is called a stand-in',
    status: status({ tailnet: { nodeFqdn: SELF, tailnetSuffix: 'tail0.ts.net', tailscaleConnected: false, source: 'env', tailnetName: null } }),
    includes: ['tail0.ts.net (HUB_NODE_FQDN stand-in, not read from Tailscale)'],
  },
  {
    name: 'a suffix from HUB_TAILNET_SUFFIX alone is called its stand-in, not HUB_NODE_FQDN’s',
    status: status({ tailnet: { nodeFqdn: null, tailnetSuffix: 'tail0.ts.net', tailscaleConnected: false, source: 'env', tailnetName: null } }),
    includes: ['tail0.ts.net (HUB_TAILNET_SUFFIX stand-in, not read from Tailscale)'],
    excludes: ['HUB_NODE_FQDN stand-in'],
  },
  {
    name: 'an unusable identity names the error and the recovery command',
    status: status({
      identity: {
        nodeUuid: '11111111-2222-3333-4444-555555555555',
        fingerprint: FP,
        identityError: 'the sealed key cannot be opened with this secret',
        identityCause: 'key-unopenable',
      },
    }),
    includes: [/identity\s+UNUSABLE: the sealed key cannot be opened with this secret; .*cihub pool rotate-identity/],
  },
  {
    name: 'an identity that could not be made names the error and the secret to mend, and no fingerprint or UUID',
    status: status({
      identity: {
        nodeUuid: null,
        fingerprint: null,
        identityError: 'the secret in /d/identity.secret cannot be used: the file is empty',
        identityCause: 'secret-invalid',
      },
    }),
    includes: [/identity\s+UNUSABLE: the secret in \/d\/identity\.secret cannot be used: the file is empty; none could be made.*remove that file/],
    excludes: ['not made yet', 'fingerprint', 'node UUID', 'rotate-identity'],
  },
  {
    name: 'an identity the disk refused names the error and the disk to mend, not the secret',
    status: status({
      identity: {
        nodeUuid: null,
        fingerprint: null,
        identityError: 'the secret in /d/identity.secret cannot be used: it cannot be created: ENOSPC: no space left on device, write',
        identityCause: 'disk-refused',
      },
    }),
    includes: [/identity\s+UNUSABLE: .*ENOSPC.*; none could be made, so this Hub cannot pair\. Fix: free space on the disk holding the data dir/],
    excludes: ['remove that file', 'write a secret', 'rotate-identity'],
  },
  {
    name: 'an active PIN shows its expiry and never digits',
    status: status({ pairingPin: { active: true, expiresAt: '2026-11-30T12:10:00.000Z', expiresInMs: 600_000 } }),
    includes: [/pairing PIN\s+active until 2026-11-30 12:10:00Z/],
    excludes: [/\b\d{6}\b/],
  },
  {
    name: 'HUB_POOL_PEER_ORIGINS in force is said loudly, with each mapping',
    status: status({ peerOrigins: new Map([[PEER, 'http://127.0.0.1:4002']]) }),
    includes: [`!! peers are dialled through HUB_POOL_PEER_ORIGINS (development): ${PEER} → http://127.0.0.1:4002`],
  },
  {
    name: 'what the Hub set aside as it started is said loudly, one line each',
    status: status({
      startupWarnings: ['OTEL_EXPORTER_OTLP_HEADERS is set, but no endpoint is; using no export', 'settings.json had values the Hub could not use'],
    }),
    includes: [
      '  !! at start-up: OTEL_EXPORTER_OTLP_HEADERS is set, but no endpoint is; using no export',
      '  !! at start-up: settings.json had values the Hub could not use',
    ],
  },
  {
    name: 'a connected signed peer: routing is active, its models join the pool, single-node models are marked',
    status: usable(status({ peers: [peer()], usablePeers: [usablePeerFixture(PEER, peer().backends ?? [], { peerId: peer().id })] })),
    includes: [
      'Hub Pool: routing across the pool',
      'routing is active: requests can be placed on 1 peer as well as on this Hub',
      /qwen3:8b\s+local \(ollama\), hub-b\.tail0\.ts\.net$/m,
      /Qwen\/Qwen3-4B\s+hub-b\.tail0\.ts\.net\s+⚠ on one node only/,
      /llama3\.2:3b\s+local \(ollama\)\s+⚠ on one node only/,
      '3 models across 2 nodes; 2 on one node only',
      /Peers \(1\)\n  hub-b\.tail0\.ts\.net\s+connected\s+signed\s+last seen 10s ago\s+context none\s+ceiling none\s+2 models, queue 0$/m,
    ],
    excludes: ['Peers refusing this Hub', 'Legacy auth'],
  },
  {
    name: "a peer's queue shows beside its models while placement can use it, and not once it cannot",
    status: ((s: PoolStatus) => ({ ...s, peers: s.peers.map((p) => (p.nodeFqdn === PEER ? { ...p, queueDepth: 3 } : p)) }))(
      status({
        peers: [peer(), peer({ id: 'peer-c', nodeFqdn: 'hub-c.tail0.ts.net', backends: [{ kind: 'ollama', models: ['qwen3:8b'] }] })],
        usablePeers: [usablePeerFixture(PEER, peer().backends ?? [], { peerId: peer().id })],
      }),
    ),
    includes: [/hub-b\.tail0\.ts\.net\s+connected.*\s2 models, queue 3$/m, /hub-c\.tail0\.ts\.net\s+connected.*\s1 model$/m],
  },
  // tailscaleAdminApiConfigured was in status and on the dashboard, but the CLI never said it.
  {
    name: 'this node says when no Admin API credential is set',
    status: status(),
    includes: [/^ {2}admin API\s+no credential \(TAILSCALE_OAUTH_CLIENT_ID and TAILSCALE_OAUTH_CLIENT_SECRET not set\)/m],
  },
  {
    name: 'with a credential, this node names the tailnet the Admin API is asked about',
    status: status({ tailscaleAdminApiConfigured: true }),
    includes: [/^ {2}admin API\s+credential set: asks about tailnet alice@example\.com$/m],
  },
  {
    name: "with a credential and a tailnet suffix but no tailnet name, it is the OAuth client's own tailnet that is asked about",
    status: status({
      tailscaleAdminApiConfigured: true,
      tailnet: { nodeFqdn: SELF, tailnetSuffix: 'tail0.ts.net', tailscaleConnected: false, source: 'env', tailnetName: null },
    }),
    includes: [/^ {2}admin API\s+credential set: asks about the OAuth client's own tailnet/m],
  },
  {
    name: 'with a credential but no tailnet at all, the Admin API is not asked',
    status: status({
      tailscaleAdminApiConfigured: true,
      tailnet: { nodeFqdn: null, tailnetSuffix: null, tailscaleConnected: false, source: 'none', tailnetName: null },
    }),
    includes: [/^ {2}admin API\s+credential set, but not asked: this Hub is on no tailnet$/m],
  },
  {
    // Status has counted them all along (forwardedInFlight); the CLI printed nothing of it.
    name: "a peer's line counts this Hub's requests still waiting on it, and says nothing while there are none",
    status: usable(
      status({
        peers: [peer(), peer({ id: 'peer-c', nodeFqdn: 'hub-c.tail0.ts.net', backends: [{ kind: 'ollama', models: ['qwen3:8b'] }] })],
        usablePeers: [
          usablePeerFixture(PEER, peer().backends ?? [], { peerId: peer().id }),
          usablePeerFixture('hub-c.tail0.ts.net', [{ kind: 'ollama', models: ['qwen3:8b'] }], { peerId: 'peer-c' }),
        ],
        forwarded: (name) => (name === PEER ? 2 : 0),
      }),
    ),
    includes: [/hub-b\.tail0\.ts\.net\s+connected.*\s2 models, queue 0, 2 forwarded from here$/m, /hub-c\.tail0\.ts\.net\s+connected.*\s1 model, queue 0$/m],
  },
  {
    name: 'a Hub with no model of its own counts only the nodes that serve one',
    status: usable(
      status({
        backends: [backend('ollama', [], false)],
        peers: [peer(), peer({ id: 'peer-c', nodeFqdn: 'hub-c.tail0.ts.net', backends: [{ kind: 'ollama', models: ['qwen3:8b'] }] })],
        usablePeers: [
          usablePeerFixture(PEER, peer().backends ?? [], { peerId: peer().id }),
          usablePeerFixture('hub-c.tail0.ts.net', [{ kind: 'ollama', models: ['qwen3:8b'] }], { peerId: 'peer-c' }),
        ],
      }),
    ),
    includes: [/qwen3:8b\s+hub-b\.tail0\.ts\.net, hub-c\.tail0\.ts\.net$/m, '2 models across 2 nodes; 1 on one node only'],
    excludes: [/local \(/],
  },
  {
    name: 'a disabled peer is marked and its models are not offered',
    status: status({ peers: [peer({ enabled: false })] }),
    includes: [/hub-b\.tail0\.ts\.net\s+connected, disabled/],
    excludes: ['Qwen/Qwen3-4B', 'routing is active'],
  },
  {
    name: 'a peer disabled here: the headline says no peer can take work, and names the switch (not "no peer connected")',
    status: status({ peers: [peer({ enabled: false })] }),
    includes: [
      "Hub Pool: on, but no peer can take work now: serving from this Hub's own engines",
      `${PEER} is disabled here: no work goes to it or comes from it (cihub pool peer-enable ${PEER} undoes this)`,
    ],
    excludes: ['no peer connected', 'routing across the pool'],
  },
  {
    name: 'a peer that disabled this Hub: connected and enabled here, yet routing cannot use it, and the headline says so',
    status: status({ peers: [peer({ acceptingWork: false, backends: [] })] }),
    includes: [
      'Hub Pool: on, but no peer can take work now',
      `${PEER} is not taking work from this Hub: it has disabled this Hub or switched off serving peers`,
    ],
    excludes: ['routing is active', 'routing across the pool'],
  },
  {
    name: 'half paired here: the row says the approval never reached it, with both unpairs, instead of legacy auth, "rejoins by itself" or clocks',
    status: status({
      peers: [
        peer({
          direction: 'inbound',
          authMode: 'bearer',
          status: 'unreachable',
          consecutiveFailures: 3,
          probeFailure: { kind: 'unauthorized', since: '2026-11-30T11:58:00.000Z', action: probeFailureAction('unauthorized', PEER, SELF) },
          pairingProblem: {
            kind: 'half_paired_here',
            since: '2026-11-30T11:57:00.000Z',
            action: `check that the two Hubs can reach each other's https address (cihub pool doctor on each says whether they can), then undo the pairing on both sides: cihub pool unpair ${PEER} here, and cihub pool unpair ${SELF} on ${PEER} if it still lists the request; then pair again from one Hub`,
          },
        }),
      ],
    }),
    includes: [
      /hub-b\.tail0\.ts\.net\s+unreachable\s+not confirmed/,
      'Pairings that need both operators',
      'half paired: this Hub approved its request, but the approval never reached it',
      `cihub pool unpair ${SELF} on ${PEER}`,
    ],
    excludes: ['bearer (legacy auth)', 'rejoins by itself', 'compare the two clocks', 'Legacy auth', 'Peers refusing this Hub'],
  },
  {
    name: 'a peer that said it is shutting down: no work goes to it, and it rejoins by itself',
    status: status({ peers: [peer({ status: 'unreachable', leftAt: '2026-11-30T11:59:00.000Z' })] }),
    includes: ['↳ said it was shutting down at 2026-11-30 11:59:00Z: no work goes to it, and it rejoins by itself on its first good poll'],
  },
  {
    name: 'a peer that left and came back refusing: the refusal speaks, not the notice (waiting will not fix it)',
    status: status({
      peers: [
        peer({
          status: 'unreachable',
          leftAt: '2026-11-30T11:59:00.000Z',
          probeFailure: { kind: 'identity_changed', since: '2026-11-30T11:59:30.000Z', action: 're-pair' },
        }),
      ],
    }),
    includes: ['↳ refusing this Hub: see below', 'Peers refusing this Hub'],
    excludes: ['rejoins by itself'],
  },
  {
    name: 'a peer that said it is shutting down, its models dropped with its snapshot: unknown since, not "not reported yet"',
    status: status({ peers: [peer({ status: 'unreachable', leftAt: '2026-11-30T11:59:00.000Z', backends: null })] }),
    includes: ['models unknown since it said it was shutting down'],
    excludes: ['models not reported yet'],
  },
  {
    name: 'every peer signs and signed-only is off: it says turning poolRequireSignedPeers on is safe now',
    status: usable(status({ peers: [peer(), peer({ id: 'bbbbbbbb-0000-4000-8000-000000000002', nodeFqdn: 'hub-c.tail0.ts.net' })] })),
    includes: ['Signed requests only: every peer signs now, so turning on poolRequireSignedPeers is safe (cihub pool set poolRequireSignedPeers true).'],
    excludes: ['Legacy auth'],
  },
  {
    name: 'one peer still on a bearer token: not safe yet, and no "safe" line',
    status: status({ peers: [peer(), peer({ id: 'bbbbbbbb-0000-4000-8000-000000000002', nodeFqdn: 'hub-c.tail0.ts.net', authMode: 'bearer' })] }),
    includes: ['Legacy auth: hub-c.tail0.ts.net still uses a bearer token; leave poolRequireSignedPeers off until every peer shows signed'],
    excludes: ['is safe'],
  },
  {
    name: 'a peer on bearer auth is called legacy, with the poolRequireSignedPeers advice',
    status: status({ peers: [peer({ authMode: 'bearer' })] }),
    includes: [
      /connected\s+bearer \(legacy auth\)/,
      'Legacy auth: hub-b.tail0.ts.net still uses a bearer token; leave poolRequireSignedPeers off until every peer shows signed',
    ],
  },
  {
    name: 'an incoming request is marked pending, with the approve command and its key fingerprint',
    status: status({
      peers: [peer({ direction: 'inbound', status: 'pending', authMode: 'bearer', lastSeenAt: null, backends: null, expiresAt: '2026-12-01T11:00:00.000Z' })],
    }),
    includes: [
      /hub-b\.tail0\.ts\.net\s+pending: waiting for your approval\s+-\s+asked 1h ago\s+approve with `cihub pool approve abcdef12`/,
      '↳ key fingerprint 9999:8888:7777:6666:5555:4444:3333:2222',
    ],
    excludes: ['Legacy auth', 'routing is active'],
  },
  {
    name: 'an incoming request without a PIN says its name is only a claim',
    status: status({ peers: [peer({ direction: 'inbound', status: 'pending', fingerprint: null, pinVerified: false, lastSeenAt: null, backends: null })] }),
    includes: ['↳ no key: this request carried no PIN, so its name is only a claim'],
  },
  {
    name: 'an outgoing request says it waits for the other Hub',
    status: status({ peers: [peer({ status: 'pending', lastSeenAt: null, backends: null, expiresAt: '2026-12-01T11:00:00.000Z' })] }),
    includes: [/pending: waiting for its approval\s+-\s+asked 1h ago\s+sent; expires 2026-12-01 11:00:00Z/],
  },
  {
    name: 'an unreachable peer names the failure and that it rejoins by itself, outside the refusal block',
    status: status({
      peers: [
        peer({
          status: 'unreachable',
          consecutiveFailures: 3,
          probeFailure: { kind: 'unreachable', since: '2026-11-30T11:58:00.000Z', action: probeFailureAction('unreachable', PEER, SELF) },
        }),
      ],
    }),
    includes: [/hub-b\.tail0\.ts\.net\s+unreachable/, '↳ last probe failed: no usable answer since 2026-11-30 11:58:00Z (3 in a row); it rejoins by itself'],
    excludes: ['Peers refusing this Hub', 'Qwen/Qwen3-4B'],
  },
  {
    name: 'identity_changed: the refusal block names the cause and the re-pair commands in order',
    status: status({ peers: [refusing('identity_changed')] }),
    check: (text) => {
      const lines = block(text, 'Peers refusing this Hub');
      assert.equal(lines.length, 2, text);
      assert.match(lines[0]!, /^ {2}hub-b\.tail0\.ts\.net: identity changed: .* \(since 2026-11-30 11:58:00Z\)$/);
      assert.equal(
        lines[1],
        `    what to do: re-pair: cihub pool unpair ${PEER} here; cihub pool pairing-pin on ${PEER}; cihub pool pair ${PEER} --pin <digits> here; then cihub pool approve ${SELF} on ${PEER}`,
      );
      assert.match(text, /hub-b\.tail0\.ts\.net\s+unreachable\s+signed.*\n {4}↳ refusing this Hub: see below/);
    },
  },
  {
    name: 'unauthorized: the refusal block says credentials refused and what to compare',
    status: status({ peers: [refusing('unauthorized')] }),
    check: (text) => {
      const lines = block(text, 'Peers refusing this Hub');
      assert.equal(lines.length, 2, text);
      assert.match(lines[0]!, /^ {2}hub-b\.tail0\.ts\.net: credentials refused: /);
      assert.match(lines[1]!, /^ {4}what to do: run cihub pool status on hub-b\.tail0\.ts\.net: .*clocks/);
    },
  },
  {
    name: 'cannot_authenticate: its own block with the fix, not under the refusals and not "rejoins by itself"',
    status: status({
      peers: [
        peer({
          status: 'unreachable',
          consecutiveFailures: 3,
          probeFailure: {
            kind: 'cannot_authenticate',
            since: '2026-11-30T11:58:00.000Z',
            action: probeFailureAction('cannot_authenticate', PEER, SELF, 'signed_required'),
          },
        }),
      ],
    }),
    excludes: ['Peers refusing this Hub', 'rejoins by itself'],
    check: (text) => {
      const lines = block(text, 'Peers this Hub cannot authenticate to');
      assert.equal(lines.length, 2, text);
      assert.match(lines[0]!, /^ {2}hub-b\.tail0\.ts\.net: this Hub holds no credential it can present, so it sends no probe \(since 2026-11-30 11:58:00Z\)$/);
      assert.match(lines[1]!, /^ {4}what to do: no probe was sent.*cihub pool set poolRequireSignedPeers false/);
      assert.match(text, /hub-b\.tail0\.ts\.net\s+unreachable.*\n {4}↳ no probe sent: this Hub cannot authenticate to it; see below/);
    },
  },
  {
    name: 'only refusing peers are listed under the refusal block',
    status: usable(
      status({
        peers: [
          refusing('identity_changed'),
          peer({ id: 'bbbbbbbb-0000-4000-8000-000000000002', nodeFqdn: 'hub-c.tail0.ts.net' }),
          { ...refusing('unauthorized'), id: 'cccccccc-0000-4000-8000-000000000003', nodeFqdn: 'hub-d.tail0.ts.net' },
        ],
      }),
      ['hub-c.tail0.ts.net'],
    ),
    check: (text) => {
      const lines = block(text, 'Peers refusing this Hub');
      assert.deepEqual(
        lines.filter((l) => !l.startsWith('    ')).map((l) => l.trim().split(':')[0]),
        [PEER, 'hub-d.tail0.ts.net'],
      );
      assert.match(text, /Peers \(3\)/);
      assert.match(text, /routing is active: requests can be placed on 1 peer/);
    },
  },
  {
    name: 'a peer with no good poll for over three polls: still usable, shown ranking mid-load (issue 10 audit)',
    status: status({
      peers: [peer({ figuresCurrent: false })],
      usablePeers: [usablePeerFixture(PEER, peer().backends ?? [], { peerId: peer().id, queueDepth: UNKNOWN_PEER_LOAD, snapshotStale: true })],
    }),
    check: (text) => {
      assert.match(
        text,
        new RegExp(
          `hub-b\\.tail0\\.ts\\.net\\s+connected.*\\n {4}↳ no good poll for over three polls: ranks as mid-load \\(queue ${UNKNOWN_PEER_LOAD}\\) until the next one`,
        ),
      );
      assert.doesNotMatch(text, /models, queue/, 'the figure it ranks with is not what it reported');
    },
  },
  {
    name: 'a stale peer from a Hub older than loadReported: its queue is still not shown as reported',
    status: ((): PoolStatus => {
      const s = status({
        peers: [peer()],
        usablePeers: [usablePeerFixture(PEER, peer().backends ?? [], { peerId: peer().id, queueDepth: UNKNOWN_PEER_LOAD, snapshotStale: true })],
      });
      return { ...s, peers: s.peers.map(({ loadReported: _older, ...p }) => p as PoolStatus['peers'][number]) };
    })(),
    check: (text) => assert.doesNotMatch(text, /models, queue/),
  },
  {
    name: 'a peer whose fresh poll carried no in-flight count: shown ranking mid-load, not as a queue it reported',
    status: status({
      peers: [peer()],
      usablePeers: [usablePeerFixture(PEER, peer().backends ?? [], { peerId: peer().id, queueDepth: UNKNOWN_PEER_LOAD, loadReported: false })],
    }),
    check: (text) => {
      assert.match(text, new RegExp(`\\n {4}↳ its last poll reported no load: ranks as mid-load \\(queue ${UNKNOWN_PEER_LOAD}\\)`));
      assert.doesNotMatch(text, /models, queue/, 'the stand-in is not shown as its queue');
    },
  },
  {
    name: 'what the pool can serve leaves out a model a peer says it cannot serve (issue 10 audit)',
    status: status({
      backends: [],
      peers: [peer({ unservableModels: ['Qwen/Qwen3-4B'] })],
      usablePeers: [usablePeerFixture(PEER, peer().backends ?? [], { peerId: peer().id, unservableModels: ['Qwen/Qwen3-4B'] })],
    }),
    check: (text) => {
      const lines = block(text, 'What the pool can serve');
      assert.ok(
        lines.some((l) => /qwen3:8b\s+hub-b\.tail0\.ts\.net/.test(l)),
        text,
      );
      assert.ok(!lines.some((l) => l.includes('Qwen/Qwen3-4B')), text);
    },
  },
  {
    name: 'a connected peer work cannot go to (sending to peers off) adds nothing to what the pool can serve',
    status: status({
      directions: resolvePoolDirections({ userDisabled: false, outboundDisabled: true, inboundDisabled: false }, DEFAULT_SETTINGS),
      peers: [peer()],
    }),
    check: (text) => {
      const lines = block(text, 'What the pool can serve');
      assert.ok(!lines.some((l) => l.includes('hub-b') || l.includes('Qwen/Qwen3-4B')), text);
      assert.ok(
        lines.some((l) => /qwen3:8b\s+local \(ollama\)$/.test(l)),
        text,
      );
    },
  },
  {
    name: "an unreachable peer's models, limits and tier are said to be from its last good poll, with its age, not as current",
    status: status({
      peers: [
        peer({
          status: 'unreachable',
          lastSeenAt: '2026-11-30T11:55:00.000Z',
          consecutiveFailures: 3,
          probeFailure: { kind: 'unreachable', since: '2026-11-30T11:55:30.000Z', action: probeFailureAction('unreachable', PEER, SELF) },
          figuresCurrent: false,
        }),
      ],
    }),
    includes: [/last seen 5m ago .* 2 models as last seen$/m, '↳ its models, context, ceiling and tier are from its last good poll, 5m ago: not current'],
  },
  {
    name: 'a peer still connected whose last probe failed shows its figures as from the last good poll too',
    status: status({
      peers: [
        peer({ consecutiveFailures: 1, probeFailure: { kind: 'unreachable', since: '2026-11-30T11:59:55.000Z', action: 'wait' }, figuresCurrent: false }),
      ],
    }),
    includes: ['2 models as last seen', 'from its last good poll, 10s ago: not current'],
  },
  {
    name: 'a peer answering now shows its figures as current',
    status: usable(status({ peers: [peer()] })),
    includes: ['2 models, queue 0'],
    excludes: ['as last seen', 'not current'],
  },
  {
    name: 'a peer with a fresh snapshot gets no mid-load note',
    status: status({
      peers: [peer()],
      usablePeers: [usablePeerFixture(PEER, peer().backends ?? [], { peerId: peer().id, snapshotStale: false })],
    }),
    excludes: ['mid-load'],
  },
];

describe('renderPoolStatus', () => {
  for (const c of CASES) {
    it(c.name, () => {
      const text = render(c.status);
      for (const want of c.includes ?? []) {
        if (typeof want === 'string') assert.ok(text.includes(want), `expected ${JSON.stringify(want)} in:\n${text}`);
        else assert.match(text, want);
      }
      for (const unwanted of c.excludes ?? []) {
        if (typeof unwanted === 'string') assert.ok(!text.includes(unwanted), `did not expect ${JSON.stringify(unwanted)} in:\n${text}`);
        else assert.doesNotMatch(text, unwanted);
      }
      c.check?.(text);
    });
  }

  it('ends with the routing summary when one is given', () => {
    const counts = { served: 4, failed: 1, pending: 0, failedOver: 2, clientClosed: 1, requestErrors: 0, outputFaults: 0 };
    const summary: RoutingLogSummary = { bootId: 'b', startedAt: '2026-11-30T10:00:00.000Z', recorded: 5, totalRecorded: 5, oldestAt: null, counts };
    const text = renderPoolStatus(status(), summary, { nowMs: NOW });
    assert.match(text.trimEnd().split('\n').at(-1)!, /^Recent routing: 4 served · 1 failed \(1 abandoned by the caller\) · 2 failed over$/);
  });

  // The counts are over the rows the log holds, so they fall as old rows are evicted; said so once it has evicted some.
  it('says the routing counts cover only the newest rows once the log has evicted older ones', () => {
    const counts = { served: 190, failed: 10, pending: 0, failedOver: 0, clientClosed: 0, requestErrors: 0, outputFaults: 0 };
    const summary: RoutingLogSummary = { bootId: 'b', startedAt: '2026-11-30T10:00:00.000Z', recorded: 200, totalRecorded: 950, oldestAt: null, counts };
    const text = renderPoolStatus(status(), summary, { nowMs: NOW });
    assert.match(
      text.trimEnd().split('\n').at(-1)!,
      /^Recent routing \(the newest 200 of 950 since the Hub started\): 190 served · 10 failed · 0 failed over$/,
    );
  });
});

describe('renderPoolStatus: pins and withheld engines', () => {
  it('lists each pin and says when one is idle because its target is not available', () => {
    const text = renderPoolStatus(
      status({
        settings: {
          ...DEFAULT_SETTINGS,
          poolPins: [
            { scope: 'model', model: 'qwen3:8b', target: 'core-2.tail0.ts.net' },
            { scope: 'default', model: null, target: 'local' },
          ],
        },
        backends: [],
      }),
      null,
    );
    assert.match(text, /Routing pins \(prefer, never force\)/);
    assert.match(text, /qwen3:8b\s+→ core-2\.tail0\.ts\.net\s+idle: the target is not available/);
    assert.match(text, /\(every model\)\s+→ local/);
  });

  it('lists engines withheld for bad output and models this node cannot serve now', () => {
    const text = renderPoolStatus(
      status({
        withheld: {
          outputFaults: [{ key: 'local|ollama|gemma4:e4b', until: '2026-11-30T12:01:00.000Z', reason: 'degenerate-output' }],
          unservable: [{ key: 'local|ollama|gemma3:1b', until: '2026-11-30T12:01:00.000Z', reason: 'HTTP 500' }],
        },
      }),
      null,
    );
    assert.match(text, /Withheld \(node \/ engine \/ model\)/);
    assert.match(text, /local \/ ollama \/ gemma4:e4b\s+tried last until .*degenerate-output/);
    assert.match(text, /local \/ ollama \/ gemma3:1b\s+not offered until .*HTTP 500/);
  });
});

describe('renderPoolStatus: context caps', () => {
  const HEADING = "Context caps (the window each node's engine runs; none takes any window, ? is not known here)";
  const capped = (cap: number | null) => ({ ...DEFAULT_SETTINGS, inferenceMaxNumCtx: cap });
  const rows: readonly { name: string; status: PoolStatus; includes: (string | RegExp)[]; excludes: (string | RegExp)[] }[] = [
    {
      name: 'no node capped: no block',
      status: status({ peers: [peer()] }),
      includes: [/context cap\s+none \(takes any window\)/],
      excludes: ['Context caps', '! caps differ'],
    },
    {
      name: 'this node capped and a peer at another cap: side by side, with the disagreement reported',
      status: status({ settings: capped(65_536), peers: [peer({ maxNumCtx: 16_384 })] }),
      includes: [
        /context cap\s+num_ctx 65536/,
        HEADING,
        /hub-a\.tail0\.ts\.net \(this node\)\s+65536/,
        /hub-b\.tail0\.ts\.net\s+16384/,
        '! caps differ (16384, 65536)',
      ],
      excludes: ['names no cap'],
    },
    {
      name: 'a peer with no cap among capped ones reads none and is warned about',
      status: status({ settings: capped(16_384), peers: [peer({ maxNumCtx: null })] }),
      includes: [/hub-b\.tail0\.ts\.net\s+none$/m, /! hub-b\.tail0\.ts\.net names no cap while others do/],
      excludes: ['! caps differ'],
    },
    {
      name: 'a peer not polled yet reads ?, never none, and is not called uncapped',
      status: status({ settings: capped(16_384), peers: [peer({ backends: null, acceptingWork: null })] }),
      includes: [/hub-b\.tail0\.ts\.net\s+\?$/m],
      excludes: ['names no cap', '! caps differ'],
    },
  ];
  for (const r of rows) {
    it(r.name, () => {
      const text = render(r.status);
      for (const inc of r.includes) typeof inc === 'string' ? assert.ok(text.includes(inc), `${inc}\n${text}`) : assert.match(text, inc);
      for (const exc of r.excludes) typeof exc === 'string' ? assert.ok(!text.includes(exc), `${exc}\n${text}`) : assert.doesNotMatch(text, exc);
    });
  }
});

describe("containersText: a peer's container counts as status shows them", () => {
  const table: readonly { name: string; given: PeerView['containers']; reads: string }[] = [
    {
      name: 'reported and busy',
      given: { running: 6, stopped: 2, total: 8, cpuPercent: 91.25, memoryBytes: 5_368_709_120 },
      reads: 'containers: 6 running, 2 stopped (8 in all); 91.3% CPU, 5.0 GiB memory',
    },
    {
      name: 'reported, nothing running: real zeros',
      given: { running: 0, stopped: 0, total: 0, cpuPercent: 0, memoryBytes: 0 },
      reads: 'containers: 0 running, 0 stopped (0 in all); 0.0% CPU, 0.0 GiB memory',
    },
    { name: 'not reported (older build, sharing off, or a rejected rollup): never drawn as zero', given: null, reads: 'containers: not reported' },
  ];
  for (const c of table) {
    it(c.name, () => assert.equal(containersText(c.given), c.reads));
  }

  it('shows under each paired peer in cihub pool status', () => {
    const text = render(
      status({
        peers: [
          peer({ containers: { running: 1, stopped: 0, total: 1, cpuPercent: 3, memoryBytes: 2 ** 30 } }),
          peer({ id: 'bbbbbbbb-0000-4000-8000-000000000002', nodeFqdn: 'hub-c.tail0.ts.net' }),
        ],
      }),
    );
    assert.ok(text.includes('↳ containers: 1 running, 0 stopped (1 in all); 3.0% CPU, 1.0 GiB memory'), text);
    assert.ok(text.includes('↳ containers: not reported'), text);
  });
});
