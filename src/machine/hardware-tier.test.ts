import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decideTier, type DetectedGpu, type HardwareFacts, type HardwareTier } from './hardware-tier.js';

const GIB = 1024 ** 3;
/** memoryGiB null: os.totalmem() could not read it (hardware-probe.ts). */
const facts = (memoryGiB: number | null, gpus: readonly DetectedGpu[] | null, problem: string | null = null): HardwareFacts => ({
  platform: 'linux',
  arch: 'x64',
  memoryBytes: memoryGiB === null ? null : memoryGiB * GIB,
  gpus,
  problem,
});
const nvidia = (gib: number | null): DetectedGpu => ({ vendor: 'nvidia', memoryBytes: gib === null ? null : gib * GIB, via: 'nvidia-smi' });
const amd = (gib: number | null, card = 'card0'): DetectedGpu => ({
  vendor: 'amd',
  memoryBytes: gib === null ? null : gib * GIB,
  via: `/sys/class/drm/${card}`,
});
const apple = (gib: number): DetectedGpu => ({ vendor: 'apple', memoryBytes: gib * GIB, via: 'unified memory' });

describe('decideTier: one row per rule', () => {
  const rows: readonly { name: string; facts: HardwareFacts; tier: HardwareTier | null }[] = [
    // 1. Never guessed.
    { name: 'no tier when detection could not tell whether there is a GPU', facts: facts(64, null, '/sys/class/drm could not be read (EACCES)'), tier: null },
    { name: 'no tier when an NVIDIA GPU is there but its memory cannot be read', facts: facts(64, [nvidia(null)]), tier: null },
    { name: 'no tier when an AMD card has no readable VRAM size', facts: facts(64, [amd(null)]), tier: null },
    { name: 'no tier when system memory is unknown and no GPU decides', facts: facts(null, []), tier: null },
    // 2. high-end.
    { name: 'high-end: a 24 GB NVIDIA card (23.6 GiB as reported)', facts: facts(64, [nvidia(23.6)]), tier: 'high-end' },
    { name: 'high-end: exactly 23 GiB', facts: facts(64, [nvidia(23)]), tier: 'high-end' },
    { name: 'high-end: two 12 GiB cards of one vendor, summed', facts: facts(64, [nvidia(12), nvidia(12)]), tier: 'high-end' },
    { name: 'high-end: an AMD card with 32 GiB of VRAM', facts: facts(64, [amd(32)]), tier: 'high-end' },
    { name: 'high-end: Apple silicon whose GPU share is 24 GiB (36 GB machine)', facts: facts(36, [apple(24)]), tier: 'high-end' },
    { name: 'high-end even when system memory is small: the GPU decides', facts: facts(8, [nvidia(24)]), tier: 'high-end' },
    // 3. mid-range.
    { name: 'mid-range: just under 23 GiB', facts: facts(64, [nvidia(22.9)]), tier: 'mid-range' },
    { name: 'mid-range: a 10 GB card (beta-red)', facts: facts(32, [nvidia(10)]), tier: 'mid-range' },
    { name: 'mid-range: exactly 8 GiB', facts: facts(32, [amd(8)]), tier: 'mid-range' },
    { name: 'mid-range: an 8 GB NVIDIA card as nvidia-smi reports it (8188 MiB, RTX 4060)', facts: facts(32, [nvidia(8188 / 1024)]), tier: 'mid-range' },
    { name: 'mid-range: cards of two vendors are not summed together', facts: facts(32, [nvidia(12), amd(12, 'card1')]), tier: 'mid-range' },
    { name: 'mid-range: Apple silicon with a 10.7 GiB GPU share (16 GB machine)', facts: facts(16, [apple(10.7)]), tier: 'mid-range' },
    // 4. cpu-only.
    { name: 'cpu-only: no GPU and 16 GiB of memory', facts: facts(16, []), tier: 'cpu-only' },
    { name: 'cpu-only: no GPU and 256 GiB of memory', facts: facts(256, []), tier: 'cpu-only' },
    { name: 'cpu-only: a GPU under 7.5 GiB (an APU carve-out) with 32 GiB of memory', facts: facts(32, [amd(0.5)]), tier: 'cpu-only' },
    // 5. insufficient.
    { name: 'cpu-only: no GPU and a 16 GiB machine as Linux reports it (15.5 GiB)', facts: facts(15.5, []), tier: 'cpu-only' },
    { name: 'insufficient: no GPU and just under 15 GiB', facts: facts(14.9, []), tier: 'insufficient' },
    { name: 'insufficient: an 8 GB Apple machine (5.3 GiB GPU share, 8 GiB memory)', facts: facts(8, [apple(5.3)]), tier: 'insufficient' },
  ];
  for (const r of rows) it(r.name, () => assert.equal(decideTier(r.facts).tier, r.tier));

  it('says why there is no tier, and what GPU memory a tier was judged on', () => {
    assert.match(decideTier(facts(64, [nvidia(null)])).unknownBecause ?? '', /nvidia GPU at nvidia-smi has no readable memory size/);
    assert.equal(decideTier(facts(64, null, 'no drm')).unknownBecause, 'no drm');
    assert.deepEqual(decideTier(facts(64, [nvidia(12), nvidia(12)])), { tier: 'high-end', gpuMemoryBytes: 24 * GIB, unknownBecause: null });
    assert.deepEqual(decideTier(facts(16, [])), { tier: 'cpu-only', gpuMemoryBytes: null, unknownBecause: null });
  });
});
