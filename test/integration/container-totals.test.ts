/**
 * A Hub's container CPU and memory totals cover every running container its counts cover, or
 * are not stated. They were summed over the first 200 running containers while running and
 * total counted all of them, and the rollup has no field saying how many the sums cover, so a
 * larger project's totals read as complete. Against the fake Docker daemon of
 * helpers/fake-docker: a real Hub counting a project of 250 running containers, one whose Docker
 * leaves a reading out (counted as 0 it went out as measured), and the sampler
 * itself on a daemon so slow that reading every container's stats outlasts a collection's time.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { COMPOSE_LABEL, FAKE_STATS, startFakeDocker, type FakeContainer, type FakeDocker } from '../helpers/fake-docker.js';
import { eventually, startHubProcess, type HubProcess } from '../helpers/hub-process.js';
import { ContainerSampler } from '../../src/containers/container-sampler.js';
import { CONTAINER_SAMPLE_INTERVAL_MS } from '../../src/containers/container-rollup.js';
import { DockerApi } from '../../src/containers/docker-api.js';
import { Background } from '../../src/util/background.js';
import { ManualClock } from '../../src/util/clock.js';
import type { PoolStatus } from '../../src/status/pool-status.js';

/** `running` running containers and `exited` exited ones of compose project "big". */
function project(running: number, exited: number): FakeContainer[] {
  const one = (i: number, state: string) => ({ Id: `c${i}`, State: state, Labels: { [COMPOSE_LABEL]: 'big' } });
  return [...Array.from({ length: running }, (_, i) => one(i, 'running')), ...Array.from({ length: exited }, (_, i) => one(running + i, 'exited'))];
}

describe('container totals cover every running container, or are not stated', () => {
  const closing: (() => Promise<void>)[] = [];
  after(async () => {
    for (const close of closing.reverse()) await close();
  });

  it('sums the CPU and memory of all 250 running containers of a project, past the 200 once read', async () => {
    const docker: FakeDocker = await startFakeDocker({ containers: project(250, 2) });
    closing.push(() => docker.close());
    const hub: HubProcess = await startHubProcess({ env: { HUB_DOCKER_SOCKET: docker.socket, HUB_COMPOSE_PROJECTS: 'big' } });
    closing.push(async () => {
      await hub.stop();
    });

    const own = await eventually(async () => {
      const status = await hub.api<PoolStatus>('GET', '/api/inference/pool/status');
      return status.json.localNode.containers?.rollup ?? null;
    }, "the Hub's first container collection");
    // Each fake container uses one core (100 %) and 800 bytes past the page cache.
    assert.deepEqual(own, { running: 250, stopped: 2, total: 252, cpuPercent: 25_000, memoryBytes: 200_000 });
  });

  /** What a real Hub's first collection over a project of two running containers makes of `stats`, each container's answer. */
  const firstCollection = async (stats: unknown) => {
    const docker = await startFakeDocker({ containers: project(2, 1), stats });
    closing.push(() => docker.close());
    const hub: HubProcess = await startHubProcess({ env: { HUB_DOCKER_SOCKET: docker.socket, HUB_COMPOSE_PROJECTS: 'big' } });
    closing.push(async () => {
      await hub.stop();
    });
    return eventually(async () => {
      const status = await hub.api<PoolStatus>('GET', '/api/inference/pool/status');
      const c = status.json.localNode.containers;
      return c !== null && (c.rollup !== null || c.problem !== null) ? c : null;
    }, "the Hub's first container collection");
  };

  it('states no totals when Docker reports CPU or memory past what any host has, rather than sums that are not numbers', async () => {
    // Finite, and each passes the socket's schema, yet the arithmetic overflows: 1e308 of CPU time
    // in one unit of system time, and two containers of 1e308 bytes each.
    const containers = await firstCollection({
      cpu_stats: { cpu_usage: { total_usage: 1e308 }, system_cpu_usage: 2, online_cpus: 4 },
      precpu_stats: { cpu_usage: { total_usage: 0 }, system_cpu_usage: 1 },
      memory_stats: { usage: 1e308 },
    });
    assert.equal(containers.rollup, null, JSON.stringify(containers.rollup));
    assert.match(containers.problem ?? '', /CPU|memory/);
  });

  it('states no totals when Docker answers a running container without a memory reading, rather than count it as 0 bytes', async () => {
    // A host without the cgroup memory controller, or a container that stopped since it was listed.
    const containers = await firstCollection({ ...FAKE_STATS, memory_stats: {} });
    assert.equal(containers.rollup, null, JSON.stringify(containers.rollup));
    assert.match(containers.problem ?? '', /without a CPU or memory reading/);
  });

  it('fails a collection that has not read every running container within one interval, rather than state part of the sums', async () => {
    const clock = new ManualClock();
    let first = true;
    // The first stats answer arrives a whole interval after the collection began.
    const docker = await startFakeDocker({
      containers: project(12, 0),
      onStats: () => {
        if (first) clock.advance(CONTAINER_SAMPLE_INTERVAL_MS);
        first = false;
      },
    });
    closing.push(() => docker.close());
    const api = new DockerApi(docker.socket);
    closing.push(() => api.close());
    const logger = pino({ level: 'silent' });
    const sampler = new ContainerSampler({
      docker: api,
      projects: ['big'],
      hostname: 'unused',
      shared: () => true,
      clock,
      logger,
      background: new Background({ logger, clock }),
    });

    await sampler.collect();
    const report = sampler.report();
    assert.equal(report.rollup, null, JSON.stringify(report.rollup));
    assert.match(report.problem ?? '', /of 12 running containers in 60 s/);
    assert.equal(sampler.published(), null, 'nothing goes to peers either');
  });
});
