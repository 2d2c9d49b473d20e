/**
 * GPU pressure and hardware tier through two real Hubs on loopback (issue 10, items 9 and 12).
 * hub-b is given a pressure source the way an operator's vendor timer would: busyPercent in
 * <data-dir>/state/hardware/gpu_pressure.json, the host file the sampler reads first. hub-a
 * polls hub-b every 10 s, so each wait below spans one sample and one poll, not a fixed time.
 *
 * The tier is whatever hub-b detects on the machine running the test; the test checks that what
 * hub-b says about itself is what hub-a reads off the wire, never a value of its own.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { eventually, runCli } from '../helpers/hub-process.js';
import { chat, header, LONG_TEST_TIMEOUT_MS, type PoolHub, START_TIMEOUT_MS, TEST_TIMEOUT_MS, usePool } from '../helpers/pool-fixture.js';
import { PRESSURE_HOST_FILE } from '../../src/machine/pressure-sources.js';
import type { DoctorCheck } from '../../src/cli/doctor-checks.js';

type L = 'a' | 'b';
/** One sample (10 s) and one health poll (10 s), with room for a loaded machine. */
const SAMPLE_AND_POLL_MS = 60_000;

describe('GPU pressure and hardware tier between two Hubs', () => {
  const pool = usePool<L>({ hubs: { a: {}, b: {} }, pairs: [['a', 'b']], settings: { poolHealthPollSeconds: 10 } });
  const hostFile = () => join(pool().b.dataDir, PRESSURE_HOST_FILE);
  const peerB = async () => (await pool().a.status()).peers.find((p) => p.nodeFqdn === pool().b.name);

  before(
    async () => {
      mkdirSync(dirname(hostFile()), { recursive: true });
      writeFileSync(hostFile(), JSON.stringify({ busyPercent: 90 }));
    },
    { timeout: START_TIMEOUT_MS },
  );

  it('hub-b reads its host file once a peer is connected, and hub-a ranks on the band it advertises', { timeout: TEST_TIMEOUT_MS }, async () => {
    const own = await eventually(
      async () => {
        const p = (await pool().b.status()).localNode.gpuPressure;
        return p?.band === 3 ? p : null;
      },
      'hub-b to read 90 % busy from its host file',
      SAMPLE_AND_POLL_MS,
    );
    assert.equal(own.source, 'host-file');
    assert.equal(own.path, hostFile());
    const seen = await eventually(
      async () => {
        const p = await peerB();
        return p?.gpuPressure === 3 ? p : null;
      },
      'hub-a to show hub-b at band 3',
      SAMPLE_AND_POLL_MS,
    );
    assert.equal(seen.rankedPressure, 3);
    // GET /peers carries the same checked band.
    const listed = (await pool().a.api<{ peers: { nodeFqdn: string; gpuPressure: number | null }[] }>('GET', '/api/inference/pool/peers')).json.peers.find(
      (p) => p.nodeFqdn === pool().b.name,
    );
    assert.equal(listed?.gpuPressure, 3);
  });

  it("hub-a shows the tier hub-b detected, and hub-b's doctor says what it detected", { timeout: TEST_TIMEOUT_MS }, async () => {
    const hardware = await eventually(async () => {
      const h = (await pool().b.status()).localNode.hardware;
      return h?.detected ? h : null;
    }, 'hub-b to finish hardware detection');
    assert.equal((await peerB())?.hardwareTier, hardware.tier);
    const doctor = await runCli(['pool', 'doctor', '--json'], { dataDir: pool().b.dataDir });
    const m1 = (JSON.parse(doctor.stdout) as { checks: DoctorCheck[] }).checks.find((c) => c.code === 'M1');
    assert.ok(m1, doctor.stdout + doctor.stderr);
    assert.equal(m1.verdict, hardware.tier === null ? 'unknown' : 'ok');
    assert.match(m1.found, hardware.tier === null ? /^hardware tier not detected/ : new RegExp(`^hardware tier ${hardware.tier}: `));
  });

  it("cihub pool status on hub-a prints hub-b's tier and band", { timeout: TEST_TIMEOUT_MS }, async () => {
    const out = await runCli(['pool', 'status'], { dataDir: pool().a.dataDir });
    assert.equal(out.code, 0, out.stderr);
    const tier = (await peerB())?.hardwareTier ?? null;
    assert.match(out.stdout, new RegExp(`↳ hardware tier ${tier === null ? 'not reported' : tier} · GPU pressure band 3`));
    assert.match(out.stdout, /^ {2}hardware tier {3}/m);
    assert.match(out.stdout, /^ {2}GPU pressure {4}/m);
  });

  it('once hub-b can no longer measure, hub-a reads no band rather than an idle one', { timeout: LONG_TEST_TIMEOUT_MS }, async () => {
    rmSync(hostFile());
    // The last reading ages out after two samples; then hub-b leaves gpuPressure off the wire.
    const seen = await eventually(
      async () => {
        const p = await peerB();
        return p !== undefined && p.gpuPressure === null ? p : null;
      },
      'hub-a to show hub-b with no band',
      2 * SAMPLE_AND_POLL_MS,
    );
    // Ranking reads an unmeasured peer mid-band (1), never 0.
    assert.equal(seen.rankedPressure, 1);
    const listed = (await pool().a.api<{ peers: { nodeFqdn: string; gpuPressure: number | null }[] }>('GET', '/api/inference/pool/peers')).json.peers.find(
      (p) => p.nodeFqdn === pool().b.name,
    );
    assert.equal(listed?.gpuPressure, null);
    const own = (await pool().b.status()).localNode.gpuPressure;
    assert.equal(own?.band, null);
  });
});

describe('GPU pressure in ranking between two Hubs', () => {
  const M = 'qwen3:8b';
  const busy = (hub: PoolHub, percent: number) => {
    const path = join(hub.dataDir, PRESSURE_HOST_FILE);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, JSON.stringify({ busyPercent: percent }));
  };

  const pool = usePool<L>({
    hubs: { a: { ollama: { models: [M] } }, b: { ollama: { models: [M] } } },
    pairs: [['a', 'b']],
    settings: { poolHealthPollSeconds: 10 },
  });
  before(
    async () => {
      // hub-a's GPU is committed to work outside the pool (its queue stays empty); hub-b's is idle.
      busy(pool().a, 95);
      busy(pool().b, 0);
    },
    { timeout: START_TIMEOUT_MS },
  );

  it('at poolPressureWeight 1 an idle node whose GPU is committed hands work to a calm peer; at 0 it keeps it', { timeout: TEST_TIMEOUT_MS }, async () => {
    await eventually(async () => (await pool().a.status()).localNode.gpuPressure?.band === 3, 'hub-a to read its own GPU at band 3', SAMPLE_AND_POLL_MS);
    await eventually(
      async () => (await pool().a.status()).peers.find((p) => p.nodeFqdn === pool().b.name)?.gpuPressure === 0,
      'hub-a to show hub-b at band 0',
      SAMPLE_AND_POLL_MS,
    );

    const atZero = await chat(pool().a, M);
    assert.equal(atZero.status, 200, atZero.text);
    assert.notEqual(header(atZero, 'x-hub-pool-served-by'), pool().b.name, 'weight 0: the band is not read, the head start keeps the work here');

    await pool().a.patchSettings({ poolPressureWeight: 1 });
    const atOne = await chat(pool().a, M);
    assert.equal(atOne.status, 200, atOne.text);
    assert.equal(header(atOne, 'x-hub-pool-served-by'), pool().b.name);
  });
});
