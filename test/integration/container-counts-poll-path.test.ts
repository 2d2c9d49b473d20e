/**
 * GET /capabilities publishes the container counts the sampler last collected and never asks
 * Docker itself (spec, "Container counts": a Docker fan-out on the poll path is the incident in
 * which a healthy node overran its peers' poll budget and was marked unreachable). Two real Hubs
 * on loopback; Hub B counts a compose project through a fake Docker daemon in this process that
 * answers B's first collection and then stops answering: it accepts each request and holds it.
 *
 * The evidence is the fake's own record, not a clock: a Hub that asked Docker while answering a
 * poll would give up on the held request (after its Docker call timeout) before it could answer,
 * so the polls B answered after the hang must not have cost a given-up listing each.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { START_TIMEOUT_MS, startPool, TEST_TIMEOUT_MS, type Pool } from '../helpers/pool-fixture.js';

const LABEL = 'com.docker.compose.project';
const CONTAINERS = [
  { Id: 'web1', State: 'running', Labels: { [LABEL]: 'lab' } },
  { Id: 'job1', State: 'exited', Labels: { [LABEL]: 'lab' } },
];
/** One core busy (a quarter of four) and 800 bytes in use past the page cache. */
const STATS = {
  cpu_stats: { cpu_usage: { total_usage: 2_000 }, system_cpu_usage: 10_000, online_cpus: 4 },
  precpu_stats: { cpu_usage: { total_usage: 1_000 }, system_cpu_usage: 6_000 },
  memory_stats: { usage: 1_000, stats: { inactive_file: 200 } },
};
const LAB = { running: 1, stopped: 1, total: 2, cpuPercent: 100, memoryBytes: 800 };

/** A Docker daemon that answers until `hang()`, then accepts every request and never answers it. */
interface FakeDocker {
  readonly server: Server;
  hang(): void;
  /** The requests received since `hang()`, and whether the Hub has given each up. */
  readonly held: { readonly path: string; closed: boolean }[];
}

function fakeDocker(socketPath: string): Promise<FakeDocker> {
  let hanging = false;
  const held: FakeDocker['held'] = [];
  const server = createServer((req: IncomingMessage, res) => {
    const url = new URL(req.url ?? '/', 'http://docker');
    if (hanging) {
      const entry = { path: url.pathname, closed: false };
      held.push(entry);
      res.on('close', () => (entry.closed = true));
      return;
    }
    const json = (body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (url.pathname === '/containers/json') return json(CONTAINERS);
    if (/^\/containers\/web1\/stats$/.test(url.pathname)) return json(STATS);
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"page not found"}');
  });
  return new Promise((resolve) => server.listen(socketPath, () => resolve({ server, hang: () => (hanging = true), held })));
}

describe('container counts on the poll path', () => {
  let pool: Pool<'a' | 'b'>;
  let docker: FakeDocker;

  before(
    async () => {
      const socket = join(mkdtempSync(join(tmpdir(), 'cihub-docker-')), 'docker.sock');
      docker = await fakeDocker(socket);
      pool = await startPool<'a' | 'b'>({
        hubs: {
          a: { ollama: { models: ['a:1b'] } },
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
      docker?.server.closeAllConnections();
      await new Promise((resolve) => docker?.server.close(resolve));
    },
    { timeout: START_TIMEOUT_MS },
  );

  it(
    'answers a peer from the stored sample while Docker hangs (a Docker fan-out on the poll path is that incident again)',
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const { a, b } = pool;
      assert.deepEqual((await a.waitForPeer(b, 'with container counts', (p) => p.containers !== null, 30_000)).containers, LAB);

      docker.hang();
      // The poll under way when Docker stopped answering may have begun before; the one after it did not.
      await a.nextPoll(b, 30_000);
      const polled = await a.nextPoll(b, 30_000);

      assert.equal(polled.status, 'connected');
      assert.deepEqual(polled.containers, LAB, 'the sample B collected before the hang, published as it was');
      // A Hub that asked Docker on the poll path gave up one listing per poll (two here). One may
      // be B's own once-a-minute collection, which lands in this window when a loaded machine
      // stretches the test past B's first minute.
      const givenUp = docker.held.filter((r) => r.closed && r.path === '/containers/json');
      assert.ok(givenUp.length <= 1, `B gave up ${givenUp.length} Docker listings while answering polls, so it waited on Docker to answer`);
    },
  );
});
