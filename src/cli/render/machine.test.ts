import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { peerViewFixture } from '../../peers/peer-view.fixture.js';
import { buildPoolStatus, type PoolStatus, type StatusInputs } from '../../status/pool-status.js';
import { statusInputs } from '../../status/status-inputs.fixture.js';
import { HARDWARE, machine, PRESSURE } from '../../status/machine.fixture.js';
import { usablePeerFixture } from '../../placement/usable-peer.fixture.js';
import type { PeerMachineFacts } from '../../status/machine-status.js';
import { renderPoolStatus } from './pool-status.js';
import { DEFAULT_SETTINGS } from '../../config/settings-schema.js';

const NOW = Date.parse('2026-11-30T12:00:00.000Z');
const PEER = 'hub-b.tail0.ts.net';

/** A status with this node's machine views and one connected peer whose last snapshot said `facts`. */
function status(
  local: ReturnType<typeof machine>,
  facts: PeerMachineFacts | null,
  usablePressure: number | null,
  extra: Partial<StatusInputs> = {},
): PoolStatus {
  const view = peerViewFixture({
    nodeFqdn: PEER,
    lastSeenAt: '2026-11-30T11:59:50.000Z',
    hardwareTier: 'high-end',
    backends: [{ kind: 'ollama', models: ['m'] }],
  });
  const usable = usablePressure === null ? [] : [usablePeerFixture(PEER, [], { peerId: view.id, hardwareTier: 'high-end', pressure: usablePressure })];
  return buildPoolStatus(statusInputs({ peers: [view], usablePeers: usable, machine: { local, peerFacts: () => facts, nowMs: NOW }, ...extra }));
}

const lines = (s: PoolStatus) => renderPoolStatus(s, null, { nowMs: NOW }).split('\n');
const field = (s: PoolStatus, label: string) =>
  lines(s)
    .find((l) => l.startsWith(`  ${label}`))
    ?.slice(2 + 16) ?? null;
const peerNote = (s: PoolStatus) => lines(s).find((l) => l.includes('↳ hardware tier')) ?? null;

describe("pool status: this node's tier and band", () => {
  const rows: readonly { name: string; local: ReturnType<typeof machine>; tier: string | RegExp; pressure: string | RegExp }[] = [
    {
      name: 'a detected tier with its facts, and a measured band with its source',
      local: machine(HARDWARE.midRange, PRESSURE.band2),
      tier: 'mid-range (NVIDIA 12.0 GiB (nvidia-smi); 32.0 GiB memory)',
      pressure: 'band 2 (72.4 % busy, smoothed, amd-drm: /sys/class/drm/card0/device/gpu_busy_percent, 4 s ago)',
    },
    { name: 'detection still running', local: machine(HARDWARE.detecting, PRESSURE.noPeer), tier: /^detecting/, pressure: /^not measured: no peer connected/ },
    {
      name: 'no tier when the GPU could not be sized',
      local: machine(HARDWARE.unsized, PRESSURE.noSource),
      tier: /^not detected: the nvidia GPU/,
      pressure: /^not measured: no source answers/,
    },
    {
      name: 'no source on a machine without a GPU: both sources named as silent',
      local: machine(HARDWARE.cpuOnly, PRESSURE.noSource),
      tier: /^cpu-only/,
      pressure: 'not measured: no source answers (no host file, no AMD gpu_busy_percent); peers rank this node mid-band',
    },
    {
      name: 'no source beside an NVIDIA card: the AMD counter named as not read there',
      local: machine(HARDWARE.midRange, PRESSURE.noSource),
      tier: /^mid-range/,
      pressure: 'not measured: no source answers (no host file; an AMD counter is not read beside the nvidia GPU); peers rank this node mid-band',
    },
    {
      name: 'a peer connected and no tick yet: the first reading is at most one 10 s interval away',
      local: machine(HARDWARE.midRange, PRESSURE.firstTick),
      tier: /^mid-range/,
      pressure: 'not measured yet: the first reading comes within 10 s',
    },
    {
      name: 'a last reading too old to advertise says how old it is',
      local: machine(HARDWARE.midRange, PRESSURE.aged),
      tier: /^mid-range/,
      pressure: 'not measured: the last reading (45 s ago) is too old to advertise',
    },
    {
      name: 'cpu-only without a GPU',
      local: machine(HARDWARE.cpuOnly, PRESSURE.noPeer),
      tier: 'cpu-only (no GPU an engine uses; 64.0 GiB memory)',
      pressure: /^not measured/,
    },
  ];
  for (const r of rows) {
    it(r.name, () => {
      const s = status(r.local, null, null);
      const tier = field(s, 'hardware tier');
      const pressure = field(s, 'GPU pressure');
      if (typeof r.tier === 'string') assert.equal(tier, r.tier);
      else assert.match(tier ?? '', r.tier);
      if (typeof r.pressure === 'string') assert.equal(pressure, r.pressure);
      else assert.match(pressure ?? '', r.pressure);
    });
  }
});

describe("pool status: each peer's tier and band", () => {
  const local = machine(HARDWARE.midRange, PRESSURE.band2);
  const fresh = NOW - 5_000;
  const rows: readonly {
    name: string;
    facts: PeerMachineFacts | null;
    ranked: number | null;
    json: { gpuPressure: number | null; rankedPressure: number | null };
    note: string;
  }[] = [
    {
      name: 'a measured band, ranked as sent',
      facts: { gpuPressure: 0, snapshotAtMs: fresh },
      ranked: 0,
      json: { gpuPressure: 0, rankedPressure: 0 },
      note: 'hardware tier high-end · GPU pressure band 0',
    },
    {
      name: "a band floored by this Hub's forwards",
      facts: { gpuPressure: 0, snapshotAtMs: fresh },
      ranked: 2,
      json: { gpuPressure: 0, rankedPressure: 2 },
      note: "hardware tier high-end · GPU pressure band 0 (ranks as 2: floored by this Hub's forwards in flight there)",
    },
    {
      name: 'no band sent: not reported, ranked mid-band',
      facts: { gpuPressure: null, snapshotAtMs: fresh },
      ranked: 1,
      json: { gpuPressure: null, rankedPressure: 1 },
      note: 'hardware tier high-end · GPU pressure not reported (ranks as 1: unmeasured reads mid-band, never idle)',
    },
    {
      name: 'a band from a snapshot older than three polls is dropped',
      facts: { gpuPressure: 3, snapshotAtMs: NOW - 91_000 },
      ranked: null,
      json: { gpuPressure: null, rankedPressure: null },
      note: 'hardware tier high-end · GPU pressure not reported',
    },
  ];
  // What ranking reads is worth a word only where ranking reads bands at all.
  const weighed = { settings: { ...DEFAULT_SETTINGS, poolPressureWeight: 1 } };
  for (const r of rows) {
    it(`${r.name} (poolPressureWeight 1)`, () => {
      const s = status(local, r.facts, r.ranked, weighed);
      const p = s.peers[0]!;
      assert.deepEqual({ gpuPressure: p.gpuPressure, rankedPressure: p.rankedPressure }, r.json);
      assert.equal(p.hardwareTier, 'high-end');
      assert.equal(peerNote(s)?.trim(), `↳ ${r.note}`);
    });
  }

  const unweighed: readonly { name: string; facts: PeerMachineFacts; ranked: number; note: string }[] = [
    {
      name: 'no band sent: not reported, and no mid-band reading claimed',
      facts: { gpuPressure: null, snapshotAtMs: fresh },
      ranked: 1,
      note: 'hardware tier high-end · GPU pressure not reported',
    },
    {
      name: "a band under this Hub's forwards: the band as sent, and no floor claimed",
      facts: { gpuPressure: 0, snapshotAtMs: fresh },
      ranked: 2,
      note: 'hardware tier high-end · GPU pressure band 0',
    },
  ];
  for (const r of unweighed) {
    it(`${r.name} at poolPressureWeight 0, where ranking never reads a band`, () => {
      const s = status(local, r.facts, r.ranked);
      assert.equal(s.settings.poolPressureWeight, 0);
      assert.equal(peerNote(s)?.trim(), `↳ ${r.note}`);
    });
  }

  it('keeps the fields in the --json document, where an absent band is null and not 0', () => {
    const doc = JSON.parse(JSON.stringify(status(machine(HARDWARE.cpuOnly, PRESSURE.noSource), { gpuPressure: null, snapshotAtMs: NOW }, 1))) as PoolStatus;
    assert.equal(doc.localNode.hardware?.tier, 'cpu-only');
    assert.equal(doc.localNode.gpuPressure?.band, null);
    assert.equal(doc.peers[0]?.gpuPressure, null);
  });
});
