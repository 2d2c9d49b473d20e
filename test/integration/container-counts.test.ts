/**
 * Container counts (issue 11, item 8; spec "Container counts"), between two real Hubs on
 * loopback that read a fake Docker daemon on a unix socket in this process. Hub B counts the
 * compose project HUB_COMPOSE_PROJECTS names; Hub A names none, so it counts the project of the
 * container it runs in (the fake answers for this machine's hostname as Docker does for a
 * container's). Each Hub sees the other's counts on its status, only those projects' containers
 * count, and a Hub that turns poolShareContainerStats off reads "not reported" on the far side.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/hub-process.js';
import { START_TIMEOUT_MS, startPool, TEST_TIMEOUT_MS, type Pool } from '../helpers/pool-fixture.js';

const LABEL = 'com.docker.compose.project';
/** Every container the fake daemon holds: two compose projects and one started by hand. */
const CONTAINERS = [
  { Id: 'web1', State: 'running', Labels: { [LABEL]: 'lab' } },
  { Id: 'db1', State: 'running', Labels: { [LABEL]: 'lab' } },
  { Id: 'job1', State: 'exited', Labels: { [LABEL]: 'lab' } },
  { Id: 'cache1', State: 'paused', Labels: { [LABEL]: 'lab' } },
  { Id: 'other1', State: 'running', Labels: { [LABEL]: 'other' } },
  { Id: 'byhand', State: 'running', Labels: {} },
];
/** One core busy (a quarter of four) and 800 bytes in use past the page cache, per running container. */
const STATS = {
  cpu_stats: { cpu_usage: { total_usage: 2_000 }, system_cpu_usage: 10_000, online_cpus: 4 },
  precpu_stats: { cpu_usage: { total_usage: 1_000 }, system_cpu_usage: 6_000 },
  memory_stats: { usage: 1_000, stats: { inactive_file: 200 } },
};
const LAB = { running: 2, stopped: 2, total: 4, cpuPercent: 200, memoryBytes: 1_600 };

/** The Engine API routes the Hub calls, with Docker's label filter applied as Docker applies it. */
function fakeDocker(socketPath: string): Promise<Server> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://docker');
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (url.pathname === '/containers/json') {
      const labels = (JSON.parse(url.searchParams.get('filters') ?? '{}') as { label?: string[] }).label ?? [];
      return json(
        200,
        CONTAINERS.filter((c) =>
          labels.every((l) => {
            const [k, v] = l.split('=');
            return (c.Labels as Record<string, string>)[k!] === v;
          }),
        ),
      );
    }
    const stats = /^\/containers\/([^/]+)\/stats$/.exec(url.pathname);
    if (stats) return CONTAINERS.some((c) => c.Id === stats[1]) ? json(200, STATS) : json(404, { message: 'No such container' });
    if (url.pathname === `/containers/${hostname()}/json`) return json(200, { Id: 'self', Config: { Labels: { [LABEL]: 'lab' } } });
    return json(404, { message: 'page not found' });
  });
  return new Promise((resolve) => server.listen(socketPath, () => resolve(server)));
}

describe('container counts from the Docker socket', () => {
  let pool: Pool<'a' | 'b'>;
  let docker: Server;

  before(
    async () => {
      const socket = join(mkdtempSync(join(tmpdir(), 'cihub-docker-')), 'docker.sock');
      docker = await fakeDocker(socket);
      pool = await startPool<'a' | 'b'>({
        hubs: {
          a: { ollama: { models: ['a:1b'] }, env: { HUB_DOCKER_SOCKET: socket } },
          b: { ollama: { models: ['b:1b'] }, env: { HUB_DOCKER_SOCKET: socket, HUB_COMPOSE_PROJECTS: 'lab' } },
        },
        pairs: [['a', 'b']],
        settings: { poolHealthPollSeconds: 10 },
      });
    },
    { timeout: START_TIMEOUT_MS },
  );
  after(
    async () => {
      await pool?.stop();
      await new Promise((resolve) => docker?.close(resolve));
    },
    { timeout: START_TIMEOUT_MS },
  );

  it("each Hub shows the other's counts for its own compose project only, and its own on status and doctor", { timeout: TEST_TIMEOUT_MS }, async () => {
    const { a, b } = pool;
    assert.deepEqual((await a.waitForPeer(b, 'with container counts', (p) => p.containers !== null, 30_000)).containers, LAB);
    assert.deepEqual(
      (await b.waitForPeer(a, 'with container counts', (p) => p.containers !== null, 30_000)).containers,
      LAB,
      'A counts the project of its own container',
    );

    const own = (await b.status()).localNode.containers;
    assert.deepEqual({ projects: own?.projects, rollup: own?.rollup, shared: own?.shared }, { projects: ['lab'], rollup: LAB, shared: true });
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
    const { a, b } = pool;
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
