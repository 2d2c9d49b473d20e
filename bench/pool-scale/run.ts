/**
 * bench/pool-scale (issue 13 item 3): one real Hub (`bin/cihub serve`, its own process) paired
 * with a fleet of fake peer Hubs (fake-fleet.ts, in this process), and what the pool's size costs
 * the Hub:
 *   1. placement CPU per request for 1..50 candidate peers (in this process, the Hub's own
 *      placement code: placement-cost.ts);
 *   2. Hub CPU per answer of GET /api/inference/pool/status (`cihub pool status`) at several
 *      pool sizes, read from /proc/<hub pid>/stat;
 *   3. Hub CPU per forwarded chat request at the same sizes (every peer a candidate);
 *   4. the Hub's CPU while idle with no peers and with the largest fleet polled every
 *      --poll-seconds: the difference is what health polling costs, projected to the default
 *      30 s cadence.
 * The pairings are seeded on disk (hub_pool_peer rows with each fake peer's key pinned, as a
 * finished PIN pairing leaves them) while the Hub is stopped; the Hub then polls them, signed,
 * and each fake peer checks every signature. Linux only (/proc).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { Pool } from 'undici';
import { DATABASE_FILE_NAME, openDatabase } from '../../src/store/database.js';
import { PeerStore } from '../../src/store/peers.js';
import { HEALTHZ_PATH as HEALTHZ } from '../../src/http/health-routes.js';
import { freePort, freshDataDir, startHubProcess, type HubProcess } from '../../test/helpers/hub-process.js';
import { lineChart } from '../line-chart.js';
import { machineTicks, processCpuMs } from '../proxy-overhead/proc-stat.js';
import { FLEET_TAILNET, startFakeFleet, type FakeFleet } from './fake-fleet.js';
import { CHAT_MODEL, PEER_MODELS_DEFAULT } from './peer-document.js';
import { median } from '../micro/measure.js';
import { REQUEST_SHAPES, type PlacementPoint, type RequestShape } from './placement-cost.js';
import { cpuUsInChild, THIS_BUILD } from './placement-child.js';

const REPO_ROOT = resolve(import.meta.dirname, '../../..');
const POOL = '/api/inference/pool';
const HUB_NAME = `bench-hub.${FLEET_TAILNET}`;
const SHAPE_LABELS: Readonly<Record<RequestShape, string>> = {
  short: 'short chat',
  long: "long prompt, a session's later call",
  'long-first': "long prompt, a session's first call",
};

const { values: o } = parseArgs({
  options: {
    peers: { type: 'string', default: '1,5,10,20,30,40,50' },
    /** Models each fake peer lists (peer-document.ts); for the Hub's half only, the placement curve keeps its fixture. */
    'peer-models': { type: 'string', default: String(PEER_MODELS_DEFAULT) },
    'status-requests': { type: 'string', default: '300' },
    'forward-requests': { type: 'string', default: '1000' },
    'forward-connections': { type: 'string', default: '4' },
    'poll-seconds': { type: 'string', default: '10' },
    'idle-seconds': { type: 'string', default: '60' },
    'placement-requests': { type: 'string', default: '2000' },
    'placement-rounds': { type: 'string', default: '1' },
    'no-placement': { type: 'boolean', default: false },
    'no-hub': { type: 'boolean', default: false },
    /** Run the Hub under --cpu-prof: one .cpuprofile per Hub start, written to bench/results/. */
    profile: { type: 'boolean', default: false },
    out: { type: 'string' },
    chart: { type: 'string', default: join(REPO_ROOT, 'bench/pool-scale/placement-curve.svg') },
  },
});
const counts = o.peers.split(',').map(Number);
const maxPeers = Math.max(...counts);

interface HubPoint {
  readonly peers: number;
  readonly statusCpuMsPerAnswer: number;
  readonly statusBytes: number;
  /** Hub CPU per answer of GET /healthz measured right after: the floor of any operator GET at that moment. */
  readonly healthzCpuMsPerAnswer: number;
  readonly forwardCpuMsPerRequest: number;
  /** Forwards each fake peer served in the run: every peer got work, or placement skipped some. */
  readonly peersServing: number;
}

/** Rewrites the pairing table with the first n fake peers, each connected with its key pinned (the Hub is stopped). */
function seedPeers(dataDir: string, fleet: FakeFleet, n: number): void {
  const db = openDatabase(join(dataDir, DATABASE_FILE_NAME));
  try {
    const store = new PeerStore(db);
    store.deleteAll();
    for (const p of fleet.peers.slice(0, n)) {
      store.insert({
        nodeFqdn: p.name,
        direction: 'outbound',
        status: 'connected',
        peerNodeUuid: p.nodeUuid,
        peerPublicKey: p.publicKey,
        pinVerified: true,
        issuedTokenHash: null,
        presentTokenSealed: null,
        createdAt: new Date().toISOString(),
        expiresAt: null,
      });
    }
  } finally {
    db.close();
  }
}

function hubIdentity(dataDir: string): { nodeUuid: string; publicKey: string } | null {
  const db = new Database(join(dataDir, DATABASE_FILE_NAME), { readonly: true });
  try {
    const row = db.prepare("SELECT node_uuid AS nodeUuid, public_key AS publicKey FROM hub_pool_identity WHERE id = 'self'").get() as
      { nodeUuid: string; publicKey: string } | undefined;
    return row ?? null;
  } finally {
    db.close();
  }
}

async function waitConnected(hub: HubProcess, n: number): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const { json } = await hub.api<{ peers: { status: string; backends: unknown }[] }>('GET', `${POOL}/peers`);
    const ready = json.peers.filter((p) => p.status === 'connected' && p.backends !== null).length;
    if (ready === n) return;
    if (Date.now() > deadline) throw new Error(`only ${ready} of ${n} fake peers connected with a snapshot after 120 s:\n${hub.log().slice(-3000)}`);
    await sleep(250);
  }
}

/** Hub CPU per answer of an operator GET, called one after another. */
async function measureGet(hub: HubProcess, path: string, requests: number): Promise<{ cpuMs: number; bytes: number }> {
  const pid = hub.child.pid!;
  let bytes = 0;
  for (let i = 0; i < 20; i++) await hub.api('GET', path);
  const before = processCpuMs(pid);
  for (let i = 0; i < requests; i++) {
    const res = await hub.api('GET', path);
    if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}`);
    if (i === 0) bytes = JSON.stringify(res.json).length;
  }
  return { cpuMs: (processCpuMs(pid) - before) / requests, bytes };
}

async function measureForwards(
  hub: HubProcess,
  fleet: FakeFleet,
  n: number,
  requests: number,
  connections: number,
): Promise<{ cpuMs: number; serving: number }> {
  const pool = new Pool(hub.url, { connections });
  const body = JSON.stringify({ model: CHAT_MODEL, messages: [{ role: 'user', content: 'hello' }] });
  const one = async () => {
    const res = await pool.request({ method: 'POST', path: `${POOL}/v1/chat/completions`, headers: { 'content-type': 'application/json' }, body });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`a forward answered ${res.statusCode}: ${text.slice(0, 300)}`);
  };
  const run = async (total: number) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (next < total) {
          next++;
          await one();
        }
      }),
    );
  };
  try {
    await run(100);
    const before = fleet.peers.slice(0, n).map((p) => p.counts.forwards);
    const t0 = processCpuMs(hub.child.pid!);
    await run(requests);
    const cpuMs = (processCpuMs(hub.child.pid!) - t0) / requests;
    const serving = fleet.peers.slice(0, n).filter((p, i) => p.counts.forwards > before[i]!).length;
    return { cpuMs, serving };
  } finally {
    await pool.close();
  }
}

/** The Hub's CPU over an idle window, as a share of one core. */
async function idleCpu(hub: HubProcess, seconds: number): Promise<number> {
  const pid = hub.child.pid!;
  const t0 = processCpuMs(pid);
  const w0 = Date.now();
  await sleep(seconds * 1000);
  return (processCpuMs(pid) - t0) / (Date.now() - w0);
}

async function main(): Promise<void> {
  const started = new Date();
  const m0 = machineTicks();
  const result: Record<string, unknown> = {
    date: started.toISOString(),
    node: process.version,
    cpus: cpus().length,
    loadavgAtStart: loadavg(),
    options: o,
  };

  let placement: PlacementPoint[] = [];
  if (!o['no-placement']) {
    const curve = Array.from({ length: 50 }, (_, i) => i + 1);
    const requests = Number(o['placement-requests']);
    const children = Number(o['placement-rounds']);
    console.log(`placement CPU per request, 1..50 peers (per point the median of ${children} process(es), each the median of its rounds of ${requests})...`);
    for (const shape of REQUEST_SHAPES) {
      for (const peers of curve) {
        const rounds = Array.from({ length: children }, () => cpuUsInChild(THIS_BUILD, `place:${shape}:${peers}`, requests));
        placement.push({ peers, shape, models: PEER_MODELS_DEFAULT, cpuUsPerRequest: median(rounds), rounds });
      }
    }
    // The body's parse is in every figure and the same at any pool size: shown apart, so the part that grows with peers reads plainly.
    const bodyRead = Object.fromEntries(REQUEST_SHAPES.map((shape) => [shape, cpuUsInChild(THIS_BUILD, `read:${shape}`, requests)]));
    result.placementBodyReadUs = bodyRead;
    console.log(
      `reading the body alone, in every figure below: ${REQUEST_SHAPES.map((shape) => `${SHAPE_LABELS[shape]} ${bodyRead[shape]!.toFixed(1)} µs`).join(', ')}`,
    );
    result.placement = placement;
    console.log(`\n| peers | ${REQUEST_SHAPES.map((shape) => `${SHAPE_LABELS[shape]} µs`).join(' | ')} |\n| ---: |${' ---: |'.repeat(REQUEST_SHAPES.length)}`);
    for (const n of curve) {
      const at = REQUEST_SHAPES.map((shape) => placement.find((p) => p.peers === n && p.shape === shape)!.cpuUsPerRequest.toFixed(1));
      if (n === 1 || n % 5 === 0) console.log(`| ${n} | ${at.join(' | ')} |`);
    }
    mkdirSync(resolve(o.chart, '..'), { recursive: true });
    writeFileSync(
      o.chart,
      lineChart(`Placement CPU per request against candidate peers (${started.toISOString().slice(0, 10)}, shared machine)`, 'candidate peers', [
        {
          yLabel: 'CPU per placement, µs',
          series: REQUEST_SHAPES.map((shape) => ({
            label: SHAPE_LABELS[shape],
            points: placement.filter((p) => p.shape === shape).map((p) => [p.peers, p.cpuUsPerRequest] as const),
          })),
          marks: [{ y: 50, label: 'target at 50 peers' }],
        },
      ]),
    );
  }

  if (!o['no-hub']) {
    const dataDir = freshDataDir();
    const port = await freePort();
    let identity: { nodeUuid: string; publicKey: string } | null = null;
    const fleet = await startFakeFleet(maxPeers, () => identity!, Number(o['peer-models']));
    const env = {
      HUB_NODE_FQDN: HUB_NAME,
      HUB_TAILNET_SUFFIX: FLEET_TAILNET,
      HUB_POOL_PEER_ORIGINS: fleet.peers.map((p) => `${p.name}=${p.origin}`).join(','),
      HUB_LOG_LEVEL: 'warn',
      ...(o.profile
        ? { NODE_OPTIONS: `--import=${join(import.meta.dirname, 'cpu-profile.js')}`, CPU_PROFILE_DIR: join(REPO_ROOT, 'bench/results/pool-scale-profiles') }
        : {}),
    };
    let hub = await startHubProcess({ port, dataDir, env });
    const points: HubPoint[] = [];
    try {
      // The identity is minted on first use; minting a pairing PIN (the first step of a real pairing) uses it.
      const pin = await hub.api('POST', `${POOL}/pairing-pin`);
      if (pin.status !== 200) throw new Error(`POST /pairing-pin: ${JSON.stringify(pin.json)}`);
      identity = hubIdentity(dataDir);
      if (identity === null) throw new Error('the Hub has no pool identity after its first start');
      const set = await hub.api('PATCH', `${POOL}/settings`, { poolHealthPollSeconds: Number(o['poll-seconds']) });
      if (set.status !== 200) throw new Error(`PATCH settings: ${JSON.stringify(set.json)}`);
      const idleNone = await idleCpu(hub, Number(o['idle-seconds']));
      result.idleNoPeersCores = idleNone;
      console.log(`\nHub idle with no peers: ${(idleNone * 100).toFixed(2)}% of a core over ${o['idle-seconds']} s`);
      for (const n of counts) {
        await hub.stop();
        seedPeers(dataDir, fleet, n);
        hub = await startHubProcess({ port, dataDir, env });
        await waitConnected(hub, n);
        const status = await measureGet(hub, `${POOL}/status`, Number(o['status-requests']));
        // The floor on this machine at this moment: the same request path for the smallest answer there is.
        const floor = await measureGet(hub, HEALTHZ, Number(o['status-requests']));
        const fwd = await measureForwards(hub, fleet, n, Number(o['forward-requests']), Number(o['forward-connections']));
        points.push({
          peers: n,
          statusCpuMsPerAnswer: status.cpuMs,
          statusBytes: status.bytes,
          healthzCpuMsPerAnswer: floor.cpuMs,
          forwardCpuMsPerRequest: fwd.cpuMs,
          peersServing: fwd.serving,
        });
        console.log(
          `${n} peers: status ${status.cpuMs.toFixed(3)} ms CPU/answer (${status.bytes} B; /healthz ${floor.cpuMs.toFixed(3)}), forward ${fwd.cpuMs.toFixed(3)} ms CPU/request, ${fwd.serving}/${n} peers served`,
        );
      }
      result.hub = points;
      // The largest fleet left connected: its idle cost, polls included.
      const pollsBefore = fleet.peers.reduce((s, p) => s + p.counts.polls, 0);
      const idleFleet = await idleCpu(hub, Number(o['idle-seconds']));
      const polls = fleet.peers.reduce((s, p) => s + p.counts.polls, 0) - pollsBefore;
      const refused = fleet.peers.reduce((s, p) => s + p.counts.refused, 0);
      const perPollMs = polls > 0 ? ((idleFleet - idleNone) * Number(o['idle-seconds']) * 1000) / polls : null;
      const at30 = perPollMs === null ? null : (perPollMs * (maxPeers / 30)) / 1000;
      result.polling = {
        peers: maxPeers,
        pollSeconds: Number(o['poll-seconds']),
        idleCores: idleFleet,
        polls,
        refused,
        perPollCpuMs: perPollMs,
        projectedCoresAt30s: at30,
      };
      console.log(
        `Hub idle with ${maxPeers} peers polled every ${o['poll-seconds']} s: ${(idleFleet * 100).toFixed(2)}% of a core; ${polls} polls (${refused} refused by the fleet)` +
          (perPollMs === null ? '' : `; ${perPollMs.toFixed(2)} ms CPU per poll, so ${(at30! * 100).toFixed(2)}% of a core at the default 30 s`),
      );
      console.log(
        '\n| peers | status ms CPU/answer | status bytes | /healthz ms CPU/answer | forward ms CPU/request | peers that served |\n| ---: | ---: | ---: | ---: | ---: | ---: |',
      );
      for (const p of points)
        console.log(
          `| ${p.peers} | ${p.statusCpuMsPerAnswer.toFixed(3)} | ${p.statusBytes} | ${p.healthzCpuMsPerAnswer.toFixed(3)} | ${p.forwardCpuMsPerRequest.toFixed(3)} | ${p.peersServing}/${p.peers} |`,
        );
    } finally {
      await hub.stop();
      await fleet.close();
    }
  }
  const m1 = machineTicks();
  result.machineBusyCores = ((m1.busy - m0.busy) / (m1.total - m0.total)) * cpus().length;
  result.loadavgAtEnd = loadavg();
  console.log(
    `\nmachine busy ${(result.machineBusyCores as number).toFixed(2)} of ${cpus().length} cores on average; load average at end ${loadavg()
      .map((v) => v.toFixed(1))
      .join(' ')}`,
  );
  const out = o.out ?? join(REPO_ROOT, `bench/results/pool-scale-${started.toISOString().replace(/[:.]/g, '-')}.json`);
  mkdirSync(resolve(out, '..'), { recursive: true });
  writeFileSync(out, JSON.stringify(result, null, 2));
  console.log(`results: ${out}`);
  if (placement.length > 0) console.log(`chart: ${o.chart}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
