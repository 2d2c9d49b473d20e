/**
 * Container counts (issue 11, item 8; spec "Container counts"), between two real Hubs on
 * loopback that read the fake Docker daemon of helpers/fake-docker (on a unix socket in this
 * process), which holds containers of two compose projects and one of none. Hub B counts the
 * compose project HUB_COMPOSE_PROJECTS names; Hub A names none, so it counts the project of the
 * container it runs in (the fake answers for this machine's hostname as Docker does for a
 * container's). Each Hub sees the other's counts on its status, only those projects' containers
 * count, and a Hub that turns poolShareContainerStats off reads "not reported" on the far side.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LAB_COUNTS, startFakeDocker, type FakeDocker } from '../helpers/fake-docker.js';
import { runCli } from '../helpers/hub-process.js';
import { START_TIMEOUT_MS, TEST_TIMEOUT_MS, usePool } from '../helpers/pool-fixture.js';

describe('container counts from the Docker socket', () => {
  let docker: FakeDocker;

  before(
    async () => {
      docker = await startFakeDocker();
    },
    { timeout: START_TIMEOUT_MS },
  );
  const pool = usePool<'a' | 'b'>(() => ({
    hubs: {
      a: { ollama: { models: ['a:1b'] }, env: { HUB_DOCKER_SOCKET: docker.socket } },
      b: { ollama: { models: ['b:1b'] }, env: { HUB_DOCKER_SOCKET: docker.socket, HUB_COMPOSE_PROJECTS: 'lab' } },
    },
    pairs: [['a', 'b']],
    settings: { poolHealthPollSeconds: 10 },
  }));
  after(
    async () => {
      await docker?.close();
    },
    { timeout: START_TIMEOUT_MS },
  );

  it("each Hub shows the other's counts for its own compose project only, and its own on status and doctor", { timeout: TEST_TIMEOUT_MS }, async () => {
    const { a, b } = pool();
    assert.deepEqual((await a.waitForPeer(b, 'with container counts', (p) => p.containers !== null, 30_000)).containers, LAB_COUNTS);
    assert.deepEqual(
      (await b.waitForPeer(a, 'with container counts', (p) => p.containers !== null, 30_000)).containers,
      LAB_COUNTS,
      'A counts the project of its own container',
    );

    const own = (await b.status()).localNode.containers;
    assert.deepEqual({ projects: own?.projects, rollup: own?.rollup, shared: own?.shared }, { projects: ['lab'], rollup: LAB_COUNTS, shared: true });
    const text = (await runCli(['pool', 'status'], { dataDir: a.dataDir })).stdout;
    assert.ok(text.includes('↳ containers: 2 running, 2 stopped (4 in all); 200.0% CPU, 0.0 GiB memory'), text);
    const doctor = JSON.parse((await runCli(['pool', 'doctor', '--json'], { dataDir: b.dataDir })).stdout) as {
      checks: { code: string; verdict: string; found: string }[];
    };
    const p3 = doctor.checks.find((c) => c.code === 'P3');
    assert.equal(p3?.verdict, 'ok', JSON.stringify(p3));
    assert.match(p3?.found ?? '', /2 running of 4/);
  });

  it('a Hub with poolShareContainerStats off reads as "not reported" on its peer, never as zero', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { a, b } = pool();
    await a.waitForPeer(b, 'with container counts', (p) => p.containers !== null, 30_000);
    await b.patchSettings({ poolShareContainerStats: false });
    const after = await a.waitForPeer(b, 'without container counts', (p) => p.containers === null, 30_000);
    assert.equal(after.status, 'connected', 'the peer is healthy; only the counts are gone');
    const text = (await runCli(['pool', 'status'], { dataDir: a.dataDir })).stdout;
    assert.ok(text.includes('↳ containers: not reported'), text);
    assert.match(
      (await runCli(['pool', 'status'], { dataDir: b.dataDir })).stdout,
      /containers\s+2 running, 2 stopped .*; not shared \(poolShareContainerStats is off\)/,
    );
    await b.patchSettings({ poolShareContainerStats: true });
  });
});
