import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CONTAINER_SAMPLE_MAX_AGE_MS, publishedRollup, rollupOf, usageOf, type DockerStats } from './container-rollup.js';

/** A whole stats answer: one core of four busy, 800 bytes in use past the page cache. */
const FULL: DockerStats = {
  cpu_stats: { cpu_usage: { total_usage: 2_000 }, system_cpu_usage: 10_000, online_cpus: 4 },
  precpu_stats: { cpu_usage: { total_usage: 1_000 }, system_cpu_usage: 6_000 },
  memory_stats: { usage: 1_000, stats: { inactive_file: 200 } },
};

describe("usageOf: one container's CPU and memory as docker stats computes them", () => {
  const table: readonly { name: string; stats: DockerStats; cpu: number | null; memory: number | null }[] = [
    {
      name: 'a quarter of the host over 4 cores is 100 % (one core), memory less inactive_file (cgroup v2)',
      stats: {
        cpu_stats: { cpu_usage: { total_usage: 2_000 }, system_cpu_usage: 10_000, online_cpus: 4 },
        precpu_stats: { cpu_usage: { total_usage: 1_000 }, system_cpu_usage: 6_000 },
        memory_stats: { usage: 1_000, stats: { inactive_file: 200 } },
      },
      cpu: 100,
      memory: 800,
    },
    {
      name: 'cgroup v1: cores from percpu_usage, cache from total_inactive_file',
      stats: {
        cpu_stats: { cpu_usage: { total_usage: 300, percpu_usage: [1, 1] }, system_cpu_usage: 1_000 },
        precpu_stats: { cpu_usage: { total_usage: 100 }, system_cpu_usage: 600 },
        memory_stats: { usage: 500, stats: { total_inactive_file: 100 } },
      },
      cpu: 100,
      memory: 400,
    },
    {
      name: 'an idle container: 0 % measured',
      stats: { ...FULL, cpu_stats: { cpu_usage: { total_usage: 1_000 }, system_cpu_usage: 10_000, online_cpus: 4 } },
      cpu: 0,
      memory: 800,
    },
    { name: 'cache larger than usage never goes below zero', stats: { ...FULL, memory_stats: { usage: 10, stats: { cache: 50 } } }, cpu: 100, memory: 0 },
    { name: 'a first reading with no previous one: unknown, not 0 %', stats: { ...FULL, precpu_stats: {} }, cpu: null, memory: null },
    {
      name: 'no system CPU time since the previous reading: unknown',
      stats: { ...FULL, cpu_stats: { cpu_usage: { total_usage: 2_000 }, system_cpu_usage: 6_000 } },
      cpu: null,
      memory: null,
    },
    {
      name: 'no memory usage (a container stopped since it was listed, no memory controller): unknown, not 0 bytes',
      stats: { ...FULL, memory_stats: {} },
      cpu: null,
      memory: null,
    },
  ];
  for (const c of table) {
    it(c.name, () => assert.deepEqual(usageOf(c.stats), c.cpu === null ? null : { cpuPercent: c.cpu, memoryBytes: c.memory }));
  }
});

describe('rollupOf: counts and totals, never names', () => {
  it('counts running; everything else (exited, paused, restarting, created) is stopped, and the two add up', () => {
    const listed = ['running', 'running', 'exited', 'paused', 'restarting', 'created'].map((state, i) => ({ id: `c${i}`, state }));
    const rollup = rollupOf(listed, [
      { cpuPercent: 12.345, memoryBytes: 100 },
      { cpuPercent: 0.005, memoryBytes: 50 },
    ]);
    assert.deepEqual(rollup, { running: 2, stopped: 4, total: 6, cpuPercent: 12.35, memoryBytes: 150 });
    assert.equal(rollup.stopped, rollup.total - rollup.running);
    assert.ok(!JSON.stringify(rollup).includes('c0'));
  });

  it('reporting with nothing there is real zeros', () => {
    assert.deepEqual(rollupOf([], []), { running: 0, stopped: 0, total: 0, cpuPercent: 0, memoryBytes: 0 });
  });
});

describe('publishedRollup: fresh and shared, or absent', () => {
  const rollup = { running: 1, stopped: 0, total: 1, cpuPercent: 1, memoryBytes: 1 };
  const at = 1_000_000;
  const table: readonly { name: string; sample: { rollup: typeof rollup; atMs: number } | null; now: number; shared: boolean; published: boolean }[] = [
    { name: 'a fresh sample, sharing on', sample: { rollup, atMs: at }, now: at + 1, shared: true, published: true },
    { name: 'exactly two intervals old', sample: { rollup, atMs: at }, now: at + CONTAINER_SAMPLE_MAX_AGE_MS, shared: true, published: true },
    {
      name: 'older than two intervals: absent, not stale',
      sample: { rollup, atMs: at },
      now: at + CONTAINER_SAMPLE_MAX_AGE_MS + 1,
      shared: true,
      published: false,
    },
    {
      name: 'collected before the wall clock was set back, so stamped ahead of now: absent, not fresh for as long as the step',
      sample: { rollup, atMs: at },
      now: at - 60 * 60_000,
      shared: true,
      published: false,
    },
    { name: 'poolShareContainerStats off: absent', sample: { rollup, atMs: at }, now: at + 1, shared: false, published: false },
    { name: 'never collected: absent, not zeros', sample: null, now: at, shared: true, published: false },
  ];
  for (const c of table) {
    it(c.name, () => assert.deepEqual(publishedRollup(c.sample, c.now, c.shared), c.published ? rollup : null));
  }
});
