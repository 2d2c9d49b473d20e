import { describe, it, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { gpuBesideAmdCounter, HOST_FILE_MAX_AGE_MS, PRESSURE_HOST_FILE, pressurePaths, readPressure, type PressureSourcePaths } from './pressure-sources.js';
import type { DetectedGpu } from './hardware-tier.js';

/** Both sources allowed, read as the files were just written. */
const fresh = (amdCounter = true) => ({ amdCounter, nowMs: Date.now() });

let root: string;
let paths: PressureSourcePaths;

/** A data dir and two drm class directories (container mount, then the host's) under one temp root. */
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'cihub-pressure-'));
  paths = { hostFile: pressurePaths(join(root, 'data')).hostFile, drmDirs: [join(root, 'host-sys-drm'), join(root, 'sys-drm')] };
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}
const hostFile = (text: string) => write(paths.hostFile, text);
const card = (dir: number, name: string, busy: string) => write(join(paths.drmDirs[dir]!, name, 'device', 'gpu_busy_percent'), busy);

describe('readPressure: the host file first, then the AMD drm counter', () => {
  it('reads nothing on a machine with neither source: null, not 0', async () => {
    assert.equal(await readPressure(paths, fresh()), null);
  });

  it('puts the host file at <data-dir>/state/hardware/gpu_pressure.json', () => {
    assert.equal(PRESSURE_HOST_FILE, join('state', 'hardware', 'gpu_pressure.json'));
    assert.equal(pressurePaths('/d').hostFile, join('/d', 'state', 'hardware', 'gpu_pressure.json'));
  });

  const hostRows: readonly { name: string; text: string; busy: number | null }[] = [
    { name: 'takes busyPercent from the host file', text: '{"busyPercent": 62.5}', busy: 62.5 },
    { name: 'keeps a measured 0', text: '{"busyPercent": 0}', busy: 0 },
    { name: 'keeps 100', text: '{"busyPercent": 100}', busy: 100 },
    { name: 'ignores keys it does not know', text: '{"busyPercent": 10, "writer": "nvidia-timer"}', busy: 10 },
    { name: 'refuses a percentage above 100', text: '{"busyPercent": 101}', busy: null },
    { name: 'refuses a negative percentage', text: '{"busyPercent": -1}', busy: null },
    { name: 'refuses a string', text: '{"busyPercent": "50"}', busy: null },
    { name: 'refuses a file without busyPercent', text: '{"busy": 50}', busy: null },
    { name: 'refuses a file that is not JSON', text: 'busy=50', busy: null },
    { name: 'refuses a file larger than 4 KiB', text: `{"busyPercent": 50, "pad": "${'x'.repeat(5000)}"}`, busy: null },
  ];
  for (const r of hostRows) {
    it(r.name, async () => {
      hostFile(r.text);
      const reading = await readPressure(paths, fresh());
      assert.equal(reading?.busyPercent ?? null, r.busy);
      if (r.busy !== null) assert.equal(reading?.source, 'host-file');
    });
  }

  it('reads a named pipe at the host file as no reading, without waiting for a writer, and goes on to the AMD counter', async () => {
    // Opening a FIFO for reading blocks until something writes to it: the sampler's tick, and the
    // libuv thread under it, would wait for good.
    mkdirSync(dirname(paths.hostFile), { recursive: true });
    const made = spawnSync('mkfifo', [paths.hostFile], { encoding: 'utf8' });
    assert.equal(made.status, 0, made.stderr);
    card(0, 'card0', '45\n');
    assert.deepEqual(await readPressure(paths, fresh()), {
      source: 'amd-drm',
      busyPercent: 45,
      path: join(paths.drmDirs[0]!, 'card0', 'device', 'gpu_busy_percent'),
    });
  });

  it('prefers the host file over an AMD counter that also answers', async () => {
    hostFile('{"busyPercent": 20}');
    card(0, 'card0', '90\n');
    assert.deepEqual(await readPressure(paths, fresh()), { source: 'host-file', busyPercent: 20, path: paths.hostFile });
  });

  it('falls through to the AMD counter when the host file is malformed', async () => {
    hostFile('{"busyPercent": "high"}');
    card(0, 'card0', '45\n');
    assert.deepEqual(await readPressure(paths, fresh()), {
      source: 'amd-drm',
      busyPercent: 45,
      path: join(paths.drmDirs[0]!, 'card0', 'device', 'gpu_busy_percent'),
    });
  });

  it('takes the busiest of several AMD cards', async () => {
    card(0, 'card0', '12\n');
    card(0, 'card1', '88\n');
    assert.equal((await readPressure(paths, fresh()))?.busyPercent, 88);
  });

  it('reads only cardN devices, not their connectors', async () => {
    card(0, 'card0-DP-1', '99\n');
    card(0, 'card0', '5\n');
    assert.equal((await readPressure(paths, fresh()))?.busyPercent, 5);
  });

  it('skips a card whose counter is not a percentage', async () => {
    card(0, 'card0', 'garbage\n');
    card(0, 'card1', '250\n');
    assert.equal(await readPressure(paths, fresh()), null);
  });

  it('tries the host /sys mount first, then the drm directory of the machine it runs on', async () => {
    card(1, 'card0', '33\n');
    assert.equal((await readPressure(paths, fresh()))?.busyPercent, 33);
    card(0, 'card0', '66\n');
    assert.equal((await readPressure(paths, fresh()))?.busyPercent, 66);
  });
});

describe('the AMD counter beside another vendor', () => {
  it('is not read when detection found a GPU of another vendor: the host file still is', async () => {
    card(0, 'card0', '0\n');
    assert.equal(await readPressure(paths, fresh(false)), null, 'an idle iGPU must not stand for the machine');
    hostFile('{"busyPercent": 70}');
    assert.equal((await readPressure(paths, fresh(false)))?.source, 'host-file');
  });

  const gpu = (vendor: DetectedGpu['vendor']): DetectedGpu => ({ vendor, memoryBytes: 8 * 2 ** 30, via: 'test' });
  const cases: readonly { found: string; gpus: readonly DetectedGpu[] | null; beside: string | null }[] = [
    { found: 'detection could not tell', gpus: null, beside: null },
    { found: 'no GPU', gpus: [], beside: null },
    { found: 'AMD cards only', gpus: [gpu('amd'), gpu('amd')], beside: null },
    { found: 'an AMD iGPU and an NVIDIA card', gpus: [gpu('amd'), gpu('nvidia')], beside: 'nvidia' },
    { found: 'an NVIDIA card alone', gpus: [gpu('nvidia')], beside: 'nvidia' },
    { found: 'Apple silicon', gpus: [gpu('apple')], beside: 'apple' },
  ];
  for (const c of cases) {
    it(`with ${c.found}: ${c.beside === null ? 'the counter may speak' : `not beside the ${c.beside} GPU`}`, () => {
      assert.equal(gpuBesideAmdCounter(c.gpus), c.beside);
    });
  }
});

describe('a host file its writer stopped updating', () => {
  const WRITTEN_AT_MS = Date.parse('2026-11-30T12:00:00.000Z');
  const at = (nowMs: number) => readPressure(paths, { amdCounter: true, nowMs });
  beforeEach(() => {
    hostFile('{"busyPercent": 95}');
    utimesSync(paths.hostFile, new Date(WRITTEN_AT_MS), new Date(WRITTEN_AT_MS));
    card(0, 'card0', '10\n');
  });

  it('is read up to a minute after it was written', async () => {
    assert.equal((await at(WRITTEN_AT_MS + HOST_FILE_MAX_AGE_MS))?.source, 'host-file');
  });

  it('is no reading after that, and the next source answers', async () => {
    assert.equal(HOST_FILE_MAX_AGE_MS, 60_000);
    assert.deepEqual(await at(WRITTEN_AT_MS + HOST_FILE_MAX_AGE_MS + 1), {
      source: 'amd-drm',
      busyPercent: 10,
      path: join(paths.drmDirs[0]!, 'card0', 'device', 'gpu_busy_percent'),
    });
  });

  it('is no reading when dated ahead of the clock (set back since it was written), and the next source answers', async () => {
    assert.equal((await at(WRITTEN_AT_MS - 2 * 3_600_000))?.source, 'amd-drm');
  });

  it('is read in the millisecond it was written, though its mtime is finer than the clock and lies ahead of it', async () => {
    const halfAMsLater = (WRITTEN_AT_MS + 0.5) / 1000; // seconds, as utimes takes them
    utimesSync(paths.hostFile, halfAMsLater, halfAMsLater);
    assert.equal((await at(WRITTEN_AT_MS))?.source, 'host-file');
  });
});
