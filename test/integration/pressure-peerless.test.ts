/**
 * A Hub with no peer reads no GPU-pressure source, even with a host file in place: a band only
 * means something next to another node's. The unit tests hold the sampler to that given its
 * "is a peer connected" question; this holds the wiring to it, through a real Hub whose host
 * file says 80 % busy before it is paired and after.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { eventually, runCli } from '../helpers/hub-process.js';
import { pair, START_TIMEOUT_MS, TEST_TIMEOUT_MS, usePool } from '../helpers/pool-fixture.js';
import { PRESSURE_HOST_FILE } from '../../src/machine/pressure-sources.js';

/** One sample (10 s) after the pairing, with room for a loaded machine. */
const SAMPLE_MS = 60_000;

describe('GPU pressure on a Hub with no peer', () => {
  const pool = usePool<'a' | 'b'>({ hubs: { a: {}, b: {} }, pairs: [], settings: { poolHealthPollSeconds: 10 } });

  before(
    async () => {
      const hostFile = join(pool().a.dataDir, PRESSURE_HOST_FILE);
      mkdirSync(dirname(hostFile), { recursive: true });
      writeFileSync(hostFile, JSON.stringify({ busyPercent: 80 }));
    },
    { timeout: START_TIMEOUT_MS },
  );

  it('reads nothing and advertises no band until a peer connects, then reads the host file', { timeout: TEST_TIMEOUT_MS + SAMPLE_MS }, async () => {
    const alone = (await pool().a.status()).localNode.gpuPressure;
    assert.deepEqual(
      { sampling: alone?.sampling, band: alone?.band, source: alone?.source, sampledMsAgo: alone?.sampledMsAgo },
      { sampling: false, band: null, source: null, sampledMsAgo: null },
    );
    const out = await runCli(['pool', 'status'], { dataDir: pool().a.dataDir });
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, /^ {2}GPU pressure {4}not measured: no peer connected/m);

    await pair(pool().a, pool().b);
    // 80 % enters band 2 (0.70) and not band 3 (0.85).
    const paired = await eventually(
      async () => {
        const p = (await pool().a.status()).localNode.gpuPressure;
        return p?.band === 2 ? p : null;
      },
      'hub-a to read its host file once hub-b is connected',
      SAMPLE_MS,
    );
    assert.equal(paired.sampling, true);
    assert.equal(paired.source, 'host-file');
  });
});
