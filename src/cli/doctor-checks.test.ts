import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { resolvePoolDirections } from '../config/kill-switch.js';
import { DEFAULT_SETTINGS } from '../config/settings-schema.js';
import type { DirectoryReport } from '../discovery/discovery-service.js';
import type { PeerClock } from '../peers/peer-clock.js';
import { buildPoolStatus, type StatusInputs } from '../status/pool-status.js';
import { statusInputs } from '../status/status-inputs.fixture.js';
import type { TailscaleReport } from '../tailnet/tailscale-report.js';
import { doctorChecks, engineHint, HUB_ONLY_CHECKS, type DoctorInputs, type HubNotAsked } from './doctor-checks.js';
import { HARDWARE, machine, PRESSURE } from '../status/machine.fixture.js';
import { peerViewFixture } from '../peers/peer-view.fixture.js';
import type { PeerView } from '../peers/peer-view.js';
import { renderPoolStatus } from './render/pool-status.js';

/** Status inputs with this node's machine views; no peer facts. */
const withMachine = (local: ReturnType<typeof machine>, settings = DEFAULT_SETTINGS): Partial<StatusInputs> => ({
  settings,
  machine: { local, peerFacts: () => null, nowMs: 0 },
});

/** A Hub listening where Serve's proxy to 127.0.0.1 reaches it. */
const onLoopback = { hubHost: '127.0.0.1', reachableFromLoopback: true } as const;

/** What a healthy Hub on a healthy tailnet reports about its Tailscale. */
const healthyTailscale: TailscaleReport = {
  nameSource: 'tailscale',
  nodeFqdn: 'hub-a.tail0.ts.net',
  binary: '/usr/bin/tailscale',
  daemon: {
    answered: true,
    backendState: 'Running',
    connected: true,
    version: '1.90.1',
    nodeFqdn: 'hub-a.tail0.ts.net',
    tailnetSuffix: 'tail0.ts.net',
    tailnetName: 'operator@example.com',
    magicDnsEnabled: true,
    certDomains: ['hub-a.tail0.ts.net'],
    tailscaleIps: ['100.101.1.2'],
    health: [],
    problem: null,
    peerCount: 2,
  },
  serve: { ...onLoopback, verdict: 'publishes', otherTarget: null, problem: null },
  certificates: { verdict: 'ok', detail: 'HTTPS certificates can be issued for hub-a.tail0.ts.net' },
  operator: { allowed: true, account: 'hub', operatorUser: 'hub', command: null, basis: "hub is Tailscale's operator" },
  lastPublish: { kind: 'already' },
};
const daemonOk: DirectoryReport = { directory: 'tailscale-daemon', state: 'ok', named: 2, detail: null };
/** A Hub that recorded the version this cihub runs. */
const SAME_VERSION = { cli: '0.2.0', hub: '0.2.0' };

function run(
  over: {
    status?: Partial<StatusInputs>;
    tailscale?: Partial<TailscaleReport> | null;
    clocks?: PeerClock[] | null;
    directories?: DirectoryReport[] | null;
    versions?: { cli: string; hub: string | null };
  } = {},
) {
  const doctor: DoctorInputs = {
    status: buildPoolStatus(statusInputs(over.status)),
    tailscale: over.tailscale === null ? null : { ...healthyTailscale, ...over.tailscale },
    clocks: over.clocks === undefined ? [] : over.clocks,
    directories: over.directories === undefined ? [daemonOk] : over.directories,
    hubPort: 5002,
    versions: over.versions ?? SAME_VERSION,
  };
  return Object.fromEntries(doctorChecks(doctor).map((c) => [c.code, c]));
}

describe('doctorChecks', () => {
  const rows: readonly { name: string; over: Parameters<typeof run>[0]; code: string; verdict: string; fix?: RegExp; found?: RegExp }[] = [
    {
      name: 'C1 fails when this Hub has no tailnet name',
      over: { status: { tailnet: { nodeFqdn: null, tailnetSuffix: null, tailscaleConnected: false, source: 'none', tailnetName: null } } },
      code: 'C1',
      verdict: 'fail',
    },
    {
      name: 'C1 fails when MagicDNS is off, and says where to turn it on',
      over: { tailscale: { daemon: { ...healthyTailscale.daemon, magicDnsEnabled: false } } },
      code: 'C1',
      verdict: 'fail',
      fix: /MagicDNS in the Tailscale admin console/,
    },
    ...(['C2', 'C3', 'C4'] as const).flatMap((code) => [
      {
        name: `${code} under HUB_NODE_FQDN names that stand-in`,
        over: { tailscale: { nameSource: 'env' as const } },
        code,
        verdict: 'unknown',
        found: /HUB_NODE_FQDN/,
      },
      {
        // With no name, only HUB_TAILNET_SUFFIX made the source env: naming HUB_NODE_FQDN sent the operator to a variable not set.
        name: `${code} under HUB_TAILNET_SUFFIX alone names that stand-in, not HUB_NODE_FQDN`,
        over: { tailscale: { nameSource: 'env' as const, nodeFqdn: null } },
        code,
        verdict: 'unknown',
        found: /HUB_TAILNET_SUFFIX stand-in/,
      },
    ]),
    {
      name: 'C2 fails when Serve has no entry, with the publish command',
      over: { tailscale: { serve: { ...onLoopback, verdict: 'absent', otherTarget: null, problem: null } } },
      code: 'C2',
      verdict: 'fail',
      fix: /tailscale serve --bg --yes --https=443 http:\/\/127\.0\.0\.1:5002/,
    },
    {
      name: 'C2 after a refused publish names the operator command first',
      over: {
        tailscale: {
          serve: { ...onLoopback, verdict: 'absent', otherTarget: null, problem: null },
          lastPublish: {
            kind: 'refused',
            command: 'sudo tailscale set --operator=hub',
            publishCommand: 'tailscale serve --bg --yes --https=443 http://127.0.0.1:5002',
            stderr: 'Access denied',
          },
        },
      },
      code: 'C2',
      verdict: 'fail',
      fix: /^run once on this machine: sudo tailscale set --operator=hub;/,
    },
    {
      name: 'C2 fails when Serve sends the name somewhere else',
      over: { tailscale: { serve: { ...onLoopback, verdict: 'other', otherTarget: 'http://127.0.0.1:8080', problem: null } } },
      code: 'C2',
      verdict: 'fail',
    },
    {
      name: 'C2 is unknown when Serve cannot be read (an old daemon)',
      over: { tailscale: { serve: { ...onLoopback, verdict: 'unknown', otherTarget: null, problem: 'too old' } } },
      code: 'C2',
      verdict: 'unknown',
    },
    { name: 'C2 is unknown when the Hub cannot be asked', over: { tailscale: null }, code: 'C2', verdict: 'unknown' },
    {
      name: 'C2 fails when the Hub listens on ::1, though Serve holds the entry the Hub would publish, and says which HUB_HOST keeps loopback',
      over: { tailscale: { serve: { verdict: 'other', otherTarget: 'http://127.0.0.1:5002', problem: null, hubHost: '::1', reachableFromLoopback: false } } },
      code: 'C2',
      verdict: 'fail',
      fix: /HUB_HOST=127\.0\.0\.1 .*HUB_HOST=0\.0\.0\.0/,
    },
    {
      name: 'C2 fails when the Hub listens on 127.0.0.2 and Serve holds nothing, rather than offering a publish command that would not reach it',
      over: { tailscale: { serve: { verdict: 'absent', otherTarget: null, problem: null, hubHost: '127.0.0.2', reachableFromLoopback: false } } },
      code: 'C2',
      verdict: 'fail',
      fix: /^restart the Hub with HUB_HOST=/,
    },
    {
      name: 'C2 passes for a Hub on ::1 that an entry made by hand reaches (http://[::1]:<port>)',
      over: { tailscale: { serve: { verdict: 'publishes', otherTarget: null, problem: null, hubHost: '::1', reachableFromLoopback: false } } },
      code: 'C2',
      verdict: 'ok',
    },
    {
      name: 'C3 fails when HTTPS certificates are off',
      over: { tailscale: { certificates: { verdict: 'missing', detail: 'off' } } },
      code: 'C3',
      verdict: 'fail',
      fix: /HTTPS Certificates/,
    },
    {
      name: "C4 fails when Tailscale refuses the Hub's account and Serve does not publish it yet",
      over: {
        tailscale: {
          serve: { ...onLoopback, verdict: 'absent', otherTarget: null, problem: null },
          operator: { allowed: false, account: 'hub', operatorUser: null, command: 'sudo tailscale set --operator=hub', basis: 'no operator' },
        },
      },
      code: 'C4',
      verdict: 'fail',
      fix: /sudo tailscale set --operator=hub/,
    },
    {
      name: 'C4 only warns when Serve already publishes the Hub',
      over: {
        tailscale: { operator: { allowed: false, account: 'hub', operatorUser: null, command: 'sudo tailscale set --operator=hub', basis: 'no operator' } },
      },
      code: 'C4',
      verdict: 'warn',
    },
    {
      name: 'P1 fails when pooling is off by the environment',
      over: { status: { directions: resolvePoolDirections({ userDisabled: true, outboundDisabled: false, inboundDisabled: false }, DEFAULT_SETTINGS) } },
      code: 'P1',
      verdict: 'fail',
    },
    {
      name: 'P2 fails when the identity key cannot be opened',
      over: { status: { identity: { nodeUuid: 'u', fingerprint: 'f', identityError: 'unseal failed', identityCause: 'key-unopenable' } } },
      code: 'P2',
      verdict: 'fail',
      fix: /cihub pool rotate-identity/,
    },
    {
      name: 'P2 fails when no identity could be made, and sends the operator to the secret, not to a rotation that would fail too',
      over: {
        status: {
          identity: {
            nodeUuid: null,
            fingerprint: null,
            identityError: 'the secret in /d/identity.secret cannot be used: the file is empty',
            identityCause: 'secret-invalid',
          },
        },
      },
      code: 'P2',
      verdict: 'fail',
      fix: /^write a secret into identity\.secret in the data dir, or remove that file/,
    },
    {
      name: 'P2 fails when the disk refused the identity, and sends the operator to the disk, not to the secret',
      over: {
        status: {
          identity: {
            nodeUuid: null,
            fingerprint: null,
            identityError: 'pool identity could not be made: hub.db in the data dir refused it (SQLITE_FULL)',
            identityCause: 'disk-refused',
          },
        },
      },
      code: 'P2',
      verdict: 'fail',
      fix: /^free space on the disk holding the data dir, or make that disk writable again.*the Hub tries again by itself within 30 s/,
    },
    {
      name: 'D1 warns loudly when the development dial map is active',
      over: { status: { peerOrigins: new Map([['hub-b.tail0.ts.net', 'http://127.0.0.1:5102']]) } },
      code: 'D1',
      verdict: 'warn',
    },
    {
      name: 'D2 warns when no directory can name a peer, and points at pairing by address',
      over: { directories: [{ directory: 'tailscale-daemon', state: 'unavailable', named: null, detail: 'logged out' }] },
      code: 'D2',
      verdict: 'warn',
      fix: /cihub pool probe/,
    },
    {
      name: 'D2 warns when the Admin API fails',
      over: { directories: [daemonOk, { directory: 'tailscale-admin-api', state: 'failed', named: null, detail: 'HTTP 401' }] },
      code: 'D2',
      verdict: 'warn',
      fix: /HTTP 401/,
    },
    {
      name: 'F4 fails for a peer more than five minutes off',
      over: { clocks: [{ nodeFqdn: 'hub-b.tail0.ts.net', skewMs: 301_000, error: null }] },
      code: 'F4',
      verdict: 'fail',
      fix: /NTP/,
    },
    {
      name: 'F4 warns for a peer more than a minute off',
      over: { clocks: [{ nodeFqdn: 'hub-b.tail0.ts.net', skewMs: -90_000, error: null }] },
      code: 'F4',
      verdict: 'warn',
    },
    { name: 'F4 passes clocks within a minute', over: { clocks: [{ nodeFqdn: 'hub-b.tail0.ts.net', skewMs: 2_000, error: null }] }, code: 'F4', verdict: 'ok' },
    {
      name: 'M1 shows the detected tier and what it was decided from',
      over: { status: withMachine(machine(HARDWARE.midRange, PRESSURE.noPeer)) },
      code: 'M1',
      verdict: 'ok',
    },
    { name: 'M1 is unknown while detection runs', over: { status: withMachine(machine(HARDWARE.detecting, PRESSURE.noPeer)) }, code: 'M1', verdict: 'unknown' },
    {
      name: 'M1 is unknown, never guessed, when the GPU cannot be sized, and says how to fix it',
      over: { status: withMachine(machine(HARDWARE.unsized, PRESSURE.noPeer)) },
      code: 'M1',
      verdict: 'unknown',
      fix: /nvidia-smi on the PATH/,
    },
    {
      name: 'M2 passes a measured band',
      over: { status: withMachine(machine(HARDWARE.midRange, PRESSURE.band2), { ...DEFAULT_SETTINGS, poolPressureWeight: 1 }) },
      code: 'M2',
      verdict: 'ok',
    },
    {
      name: 'M2 passes no source at the default weight 0 (nothing reads the band)',
      over: { status: withMachine(machine(HARDWARE.midRange, PRESSURE.noSource)) },
      code: 'M2',
      verdict: 'ok',
    },
    {
      name: 'M2 warns when bands are weighed here but this node has none, and says how to give it one',
      over: { status: withMachine(machine(HARDWARE.midRange, PRESSURE.noSource), { ...DEFAULT_SETTINGS, poolPressureWeight: 1 }) },
      code: 'M2',
      verdict: 'warn',
      fix: /gpu_pressure\.json/,
    },
    {
      name: 'F4 passes on the clocks it read, and says which it could not read',
      over: {
        clocks: [
          { nodeFqdn: 'hub-b.tail0.ts.net', skewMs: 2_000, error: null },
          { nodeFqdn: 'hub-c.tail0.ts.net', skewMs: null, error: 'no answer within 5 s' },
        ],
      },
      code: 'F4',
      verdict: 'ok',
      found: /^clocks within a minute on the 1 peer of 2 that answered: hub-b\.tail0\.ts\.net: \+2 s; not read: hub-c\.tail0\.ts\.net: no answer within 5 s$/,
    },
    {
      name: "F4 is unknown when no peer's clock could be read",
      over: { clocks: [{ nodeFqdn: 'hub-b.tail0.ts.net', skewMs: null, error: 'ECONNREFUSED' }] },
      code: 'F4',
      verdict: 'unknown',
    },
  ];
  for (const r of rows) {
    it(r.name, () => {
      const c = run(r.over)[r.code];
      assert.equal(c?.verdict, r.verdict, c?.found);
      if (r.fix) assert.match(c?.fix ?? '', r.fix);
      if (r.found) assert.match(c?.found ?? '', r.found);
    });
  }

  it('F1 fails for a peer whose identity changed, and names what to do', () => {
    const status = buildPoolStatus(statusInputs());
    const refusing = {
      ...status,
      peers: [
        {
          ...({} as (typeof status.peers)[number]),
          nodeFqdn: 'hub-b.tail0.ts.net',
          pairingProblem: null,
          probeFailure: { kind: 'identity_changed' as const, since: null, action: 're-pair' },
        },
      ],
    };
    const f1 = doctorChecks({ status: refusing, tailscale: healthyTailscale, clocks: [], directories: [daemonOk], hubPort: 5002, versions: SAME_VERSION }).find(
      (c) => c.code === 'F1',
    );
    assert.equal(f1?.verdict, 'fail');
    assert.match(f1?.found ?? '', /hub-b\.tail0\.ts\.net: identity changed/);
    assert.equal(f1?.fix, 're-pair');
  });

  it('F1 fails for a peer this Hub cannot authenticate to, and passes on its fix', () => {
    const status = buildPoolStatus(statusInputs());
    const unsent = {
      ...status,
      peers: [
        {
          ...({} as (typeof status.peers)[number]),
          nodeFqdn: 'hub-b.tail0.ts.net',
          pairingProblem: null,
          probeFailure: { kind: 'cannot_authenticate' as const, since: null, action: 'turn poolRequireSignedPeers off' },
        },
      ],
    };
    const f1 = doctorChecks({ status: unsent, tailscale: healthyTailscale, clocks: [], directories: [daemonOk], hubPort: 5002, versions: SAME_VERSION }).find(
      (c) => c.code === 'F1',
    );
    assert.equal(f1?.verdict, 'fail');
    assert.match(f1?.found ?? '', /hub-b\.tail0\.ts\.net: cannot authenticate/);
    assert.equal(f1?.fix, 'turn poolRequireSignedPeers off');
  });

  it('F3 fails for a half-paired peer with both unpairs, and F1 does not send it to the clocks', () => {
    const status = buildPoolStatus(statusInputs());
    const half = {
      ...status,
      peers: [
        {
          ...({} as (typeof status.peers)[number]),
          nodeFqdn: 'hub-b.tail0.ts.net',
          pairingProblem: { kind: 'half_paired_here' as const, since: '2026-11-30T11:00:00.000Z', action: 'remove both halves' },
          probeFailure: { kind: 'unauthorized' as const, since: null, action: 'compare the two clocks' },
        },
      ],
    };
    const checks = doctorChecks({ status: half, tailscale: healthyTailscale, clocks: [], directories: [daemonOk], hubPort: 5002, versions: SAME_VERSION });
    const f3 = checks.find((c) => c.code === 'F3');
    assert.equal(f3?.verdict, 'fail');
    assert.match(f3?.found ?? '', /hub-b\.tail0\.ts\.net: half paired here/);
    assert.equal(f3?.fix, 'remove both halves');
    const f1 = checks.find((c) => c.code === 'F1');
    assert.equal(f1?.verdict, 'ok');
    assert.match(f1?.found ?? '', /beyond the pairings F3 names/, 'F1 does not say no peer refuses this Hub while F3 names one');
    const crossed = {
      ...half,
      peers: [
        {
          ...half.peers[0]!,
          pairingProblem: { kind: 'crossed_requests' as const, since: '2026-11-30T11:00:00.000Z', action: 'cancel both' },
          probeFailure: null,
        },
      ],
    };
    const afterCrossing = doctorChecks({
      status: crossed,
      tailscale: healthyTailscale,
      clocks: [],
      directories: [daemonOk],
      hubPort: 5002,
      versions: SAME_VERSION,
    });
    assert.equal(afterCrossing.find((c) => c.code === 'F3')?.verdict, 'fail');
    assert.equal(
      afterCrossing.find((c) => c.code === 'F1')?.found,
      'no peer refuses this Hub, and this Hub can authenticate to each',
      'two crossed requests refuse nothing, so F1 points at no pairing',
    );
  });

  it('P3 reports the container counts: collected, not measured with why, or no socket', () => {
    const status = buildPoolStatus(statusInputs());
    const withContainers = (containers: NonNullable<(typeof status)['localNode']['containers']>) =>
      doctorChecks({
        status: { ...status, localNode: { ...status.localNode, containers } },
        tailscale: healthyTailscale,
        clocks: [],
        directories: [daemonOk],
        hubPort: 5002,
        versions: SAME_VERSION,
      }).find((c) => c.code === 'P3');
    const base = { socket: '/var/run/docker.sock', projects: ['lab'], shared: true, sampledAt: null, problem: null };
    assert.deepEqual(
      [
        withContainers({ ...base, rollup: { running: 2, stopped: 1, total: 3, cpuPercent: 1, memoryBytes: 1 } })?.verdict,
        withContainers({ ...base, rollup: null, problem: 'Docker answered 403' })?.verdict,
        withContainers({ ...base, socket: null, rollup: null })?.verdict,
      ],
      ['ok', 'warn', 'ok'],
    );
    assert.match(withContainers({ ...base, rollup: null, problem: 'Docker answered 403' })?.found ?? '', /not measured: Docker answered 403/);
  });

  it('E1 names each unreachable engine with where to look', () => {
    const e1 = run({
      status: {
        backends: [
          {
            backendId: 'vllm',
            kind: 'vllm',
            url: 'http://127.0.0.1:8000',
            running: false,
            healthy: false,
            models: [],
            error: 'timed out (UND_ERR_HEADERS_TIMEOUT)',
            probedMsAgo: 10,
          },
        ],
      },
    }).E1;
    assert.equal(e1?.verdict, 'warn');
    assert.match(e1?.found ?? '', /vllm at http:\/\/127\.0\.0\.1:8000: timed out/);
    assert.match(e1?.fix ?? '', /firewall.*port 8000/);
  });

  it('has no D1 row without the map, and passes a healthy Hub', () => {
    const v = run();
    assert.equal(v.D1, undefined);
    assert.deepEqual(
      ['H2', 'H3', 'C1', 'C2', 'C3', 'C4', 'P1', 'P2', 'D2', 'F1', 'F2', 'F4'].map((c) => v[c]?.verdict),
      ['ok', 'ok', 'ok', 'ok', 'ok', 'ok', 'ok', 'ok', 'ok', 'ok', 'ok', 'ok'],
    );
  });
});

describe('doctorChecks H3: what the Hub set aside as it started', () => {
  it('passes a Hub that started with everything as given', () => {
    assert.deepEqual(run().H3, { code: 'H3', verdict: 'ok', found: 'the Hub started with every variable and setting as given', fix: null });
  });

  it('warns with each warning the Hub logged while starting, and says how to clear them', () => {
    const h3 = run({ status: { startupWarnings: ['API_TIMEOUT=x is not a number; using 300000', 'settings.json had values the Hub could not use'] } }).H3;
    assert.equal(h3?.verdict, 'warn');
    assert.equal(h3?.found, 'the Hub set aside at start-up: API_TIMEOUT=x is not a number; using 300000 | settings.json had values the Hub could not use');
    assert.match(h3?.fix ?? '', /restart the Hub/);
  });
});

describe('doctorChecks H2: this cihub and the Hub that answered, by version', () => {
  const rows: { name: string; hub: string | null; h2: { verdict: string; found: string; fix: string | null } }[] = [
    { name: 'the same version passes and names it', hub: '0.2.0', h2: { verdict: 'ok', found: 'this cihub and the Hub both run 0.2.0', fix: null } },
    {
      name: 'an older Hub warns, naming both, and the fix is to restart it',
      hub: '0.1.0',
      h2: {
        verdict: 'warn',
        found: 'this cihub is 0.2.0 but the running Hub is 0.1.0',
        fix: 'restart the Hub with `cihub serve` (or its service manager) so the two agree',
      },
    },
    {
      name: 'a newer Hub warns, and the fix is not a restart, which would downgrade it',
      hub: '0.3.0',
      h2: {
        verdict: 'warn',
        found: 'this cihub is 0.2.0, older than the running Hub (0.3.0)',
        fix: 'run the cihub the Hub was started from (another install may come first on PATH), or upgrade this one, so the two agree; restarting the Hub with this cihub would downgrade it',
      },
    },
    {
      name: 'a hub.json without a version warns: the Hub is older than the field',
      hub: null,
      h2: {
        verdict: 'warn',
        found: 'this cihub is 0.2.0 but the running Hub is an older version (its hub.json records none)',
        fix: 'restart the Hub with `cihub serve` (or its service manager) so the two agree',
      },
    },
  ];
  for (const r of rows) {
    it(r.name, () => {
      const h2 = run({ versions: { cli: '0.2.0', hub: r.hub } }).H2;
      assert.deepEqual({ verdict: h2?.verdict, found: h2?.found, fix: h2?.fix }, r.h2);
    });
  }

  it('comes first: the Hub itself before its tailnet', () => {
    const status = buildPoolStatus(statusInputs());
    const checks = doctorChecks({ status, tailscale: healthyTailscale, clocks: [], directories: [daemonOk], hubPort: 5002, versions: SAME_VERSION });
    assert.deepEqual(
      checks.slice(0, 3).map((c) => c.code),
      ['H2', 'H3', 'C1'],
    );
  });
});

describe('doctorChecks F2: context caps, decided as `pool status` decides them', () => {
  const capped = (cap: number | null) => ({ ...DEFAULT_SETTINGS, inferenceMaxNumCtx: cap });
  const peer = (over: Partial<PeerView>) =>
    peerViewFixture({ nodeFqdn: 'hub-b.tail0.ts.net', backends: [{ kind: 'ollama', models: ['qwen3:8b'] }], maxNumCtx: null, ...over });
  const rows: readonly { name: string; status: Partial<StatusInputs>; verdict: string; found: RegExp; fix?: RegExp }[] = [
    { name: 'passes when no node is capped', status: { peers: [peer({})] }, verdict: 'ok', found: /^no node states a context cap$/ },
    {
      name: 'warns when this node is capped and a connected peer names none, with the fix',
      status: { settings: capped(16_384), peers: [peer({})] },
      verdict: 'warn',
      found: /^hub-b\.tail0\.ts\.net names no context cap while others do.*hub-a\.tail0\.ts\.net \(this node\): 16384; hub-b\.tail0\.ts\.net: none/,
      fix: /cihub pool context-cap N/,
    },
    {
      name: 'warns when this node names none and a peer is capped',
      status: { peers: [peer({ maxNumCtx: 65_536 })] },
      verdict: 'warn',
      found: /^hub-a\.tail0\.ts\.net \(this node\) names no context cap while others do/,
    },
    {
      name: 'passes caps that differ, and says they do',
      status: { settings: capped(65_536), peers: [peer({ maxNumCtx: 16_384 })] },
      verdict: 'ok',
      found: /the caps differ/,
    },
    {
      name: 'does not call a peer not polled yet uncapped',
      status: { settings: capped(16_384), peers: [peer({ backends: null, acceptingWork: null })] },
      verdict: 'ok',
      found: /hub-b\.tail0\.ts\.net: \?/,
    },
    {
      name: 'leaves out a peer that is not connected',
      status: { settings: capped(16_384), peers: [peer({ status: 'unreachable' })] },
      verdict: 'ok',
      found: /^no uncapped node among capped ones: hub-a\.tail0\.ts\.net \(this node\): 16384$/,
    },
  ];
  for (const r of rows) {
    it(r.name, () => {
      const f2 = run({ status: r.status }).F2;
      assert.equal(f2?.verdict, r.verdict, f2?.found);
      assert.match(f2?.found ?? '', r.found);
      if (r.fix) assert.match(f2?.fix ?? '', r.fix);
    });
  }

  it('warns exactly where the Context caps block in `pool status` warns', () => {
    for (const r of rows) {
      const status = buildPoolStatus(statusInputs(r.status));
      const blockWarns = renderPoolStatus(status, null).includes('no cap while others do');
      assert.equal(run({ status: r.status }).F2?.verdict === 'warn', blockWarns, r.name);
    }
  });
});

describe('engineHint', () => {
  const cases: [string, RegExp][] = [
    ['timed out (UND_ERR_HEADERS_TIMEOUT)', /firewall/],
    ['no answer within the 500 ms placement budget; still probing in the background', /firewall/],
    ['fetch failed (ECONNREFUSED)', /nothing listens/],
    ['fetch failed (ENOTFOUND)', /does not resolve/],
    ['TLS certificate not trusted (DEPTH_ZERO_SELF_SIGNED_CERT)', /does not trust: add its CA .*NODE_EXTRA_CA_CERTS/],
    ['HTTP 404', /answers as the kind/],
  ];
  for (const [error, hint] of cases) it(`${error} → ${hint.source}`, () => assert.match(engineHint(error, 'http://127.0.0.1:8000'), hint));
  it('names an engine that took the connection and stalled, not only a firewall, when nothing answered in time', () =>
    assert.match(
      engineHint('timed out (no connection and answer within 5000 ms)', 'http://127.0.0.1:11434'),
      /the engine may be stuck or suspended \(restart it\), or a firewall/,
    ));
});

describe('doctorChecks: what this machine is', () => {
  it('M1 names the tier, the GPU with its size and source, and the memory', () => {
    const m1 = run({ status: withMachine(machine(HARDWARE.midRange, PRESSURE.noPeer)) }).M1;
    assert.equal(m1?.found, 'hardware tier mid-range: NVIDIA 12.0 GiB (nvidia-smi); 32.0 GiB memory');
  });

  it('M1 says why there is no tier and that none is advertised', () => {
    const m1 = run({ status: withMachine(machine(HARDWARE.unsized, PRESSURE.noPeer)) }).M1;
    assert.match(m1?.found ?? '', /^hardware tier not detected, so none is advertised: the nvidia GPU .* has no readable memory size/);
  });

  it('M1 offers no PATH fix when nvidia-smi was found and named no size (a unified-memory board)', () => {
    const naSize = { ...HARDWARE.unsized, unknownBecause: 'the nvidia GPU at nvidia-smi (unparseable output) has no readable memory size' };
    const m1 = run({ status: withMachine(machine(naSize, PRESSURE.noPeer)) }).M1;
    assert.equal(m1?.verdict, 'unknown');
    assert.equal(m1?.fix ?? null, null);
  });

  it('M2 words an absent band as not measured, never as 0', () => {
    const m2 = run({ status: withMachine(machine(HARDWARE.cpuOnly, PRESSURE.noSource)) }).M2;
    assert.match(m2?.found ?? '', /^GPU pressure not measured: no source answers/);
    assert.doesNotMatch(m2?.found ?? '', /band 0/);
  });

  it('leaves M1 and M2 out for a Hub that reports no machine (an older build)', () => {
    const v = run();
    assert.equal(v.M1, undefined);
    assert.equal(v.M2, undefined);
  });
});

describe('doctorChecks without a Hub to ask', () => {
  const notRunning: HubNotAsked = {
    found: 'no Hub is running for the data dir /srv/cihub (no hub.json there)',
    fix: 'start one with `cihub serve`',
    why: 'not-running',
  };
  const withoutHub = (tailscale: Partial<TailscaleReport> = {}, notAsked: HubNotAsked = notRunning) =>
    doctorChecks({ status: null, notAsked, tailscale: { ...healthyTailscale, lastPublish: null, ...tailscale }, hubPort: 5002 });

  it('fails H1 first with why and how to start the Hub, judges Tailscale, and reads every check only the Hub answers as unknown', () => {
    const checks = withoutHub();
    assert.deepEqual(checks[0], { code: 'H1', verdict: 'fail', found: notRunning.found, fix: 'start one with `cihub serve`' });
    assert.deepEqual(
      checks.slice(1).map((c) => [c.code, c.verdict]),
      [
        ['H2', 'unknown'],
        ['H3', 'unknown'],
        ['C1', 'ok'],
        ['C2', 'ok'],
        ['C3', 'ok'],
        ['C4', 'ok'],
        ...HUB_ONLY_CHECKS.filter((code) => !code.startsWith('H')).map((code) => [code, 'unknown']),
      ],
    );
    for (const c of checks.filter((c) => c.verdict === 'unknown')) assert.equal(c.found, 'not checked: the Hub is not running (H1)', c.code);
  });

  it('lists, besides H1, the same checks a Hub with every report lists', () => {
    const status = buildPoolStatus(statusInputs(withMachine(machine(HARDWARE.midRange, PRESSURE.noPeer))));
    const containers = { socket: null, projects: [], shared: true, sampledAt: null, problem: null, rollup: null };
    const answered = doctorChecks({
      status: { ...status, localNode: { ...status.localNode, containers } },
      tailscale: healthyTailscale,
      clocks: [],
      directories: [daemonOk],
      hubPort: 5002,
      versions: SAME_VERSION,
    });
    assert.deepEqual(
      withoutHub().map((c) => c.code),
      ['H1', ...answered.map((c) => c.code)],
    );
  });

  it("names the Tailscale problem this machine has: no tailscale installed, or Serve not publishing the Hub's port", () => {
    const none = withoutHub({
      nameSource: 'none',
      nodeFqdn: null,
      binary: null,
      daemon: { ...healthyTailscale.daemon, answered: false, connected: false, nodeFqdn: null, problem: 'tailscale is not installed' },
    });
    assert.deepEqual(
      [none[3]?.code, none[3]?.verdict, none[3]?.found, none[3]?.fix],
      ['C1', 'fail', 'tailscale is not installed', 'install Tailscale on this machine and connect it (tailscale up)'],
    );
    const absent = withoutHub({ serve: { ...onLoopback, verdict: 'absent', otherTarget: null, problem: null } })[4];
    assert.deepEqual([absent?.code, absent?.verdict], ['C2', 'fail']);
    assert.match(absent?.fix ?? '', /tailscale serve --bg --yes --https=443 http:\/\/127\.0\.0\.1:5002/);
  });

  it("names the account cihub runs as, not the Hub's, when Tailscale does not accept its changes", () => {
    const c4 = withoutHub({
      operator: { allowed: false, account: 'alice', operatorUser: null, command: 'sudo tailscale set --operator=alice', basis: 'no operator' },
    }).find((c) => c.code === 'C4');
    assert.equal(c4?.found, 'Tailscale does not accept changes from alice, the account cihub runs as (no operator)');
  });

  it('says the Hub could not be asked, rather than that it is not running, when the operator key cannot be read', () => {
    const checks = withoutHub(
      {},
      {
        found: 'no device key found: /srv/cihub has no operator.key this account can read, so the Hub cannot be asked',
        fix: 'run cihub as the user that owns that folder',
        why: 'cannot-ask',
      },
    );
    assert.equal(checks[0]?.fix, 'run cihub as the user that owns that folder');
    assert.equal(checks.find((c) => c.code === 'P1')?.found, 'not checked: the Hub could not be asked (H1)');
  });

  it('says H2 is not judged because the Hub is an older build to restart, pointing at H1 for how, when its hub.json records no boot id', () => {
    const restart = 'restart that Hub with this cihub (stop pid 4242, then start it with `cihub serve` or its service manager)';
    const checks = withoutHub({}, { found: 'an older Hub seems to run as pid 4242 for the data dir /srv/cihub', fix: restart, why: 'older-hub' });
    assert.deepEqual(checks[0], { code: 'H1', verdict: 'fail', found: 'an older Hub seems to run as pid 4242 for the data dir /srv/cihub', fix: restart });
    assert.deepEqual(checks[1], {
      code: 'H2',
      verdict: 'unknown',
      found:
        'not judged: the Hub H1 names is a build older than this cihub (its hub.json records neither a boot id nor a version), and its version cannot be asked until it is restarted as H1 says',
      fix: null,
    });
    assert.equal(checks.filter((c) => c.fix?.startsWith('restart that Hub')).length, 1, 'the restart is advised once, in H1');
    assert.equal(checks.find((c) => c.code === 'H3')?.found, 'not checked: the Hub could not be asked (H1)');
  });
});
