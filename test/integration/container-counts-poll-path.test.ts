/**
 * GET /capabilities publishes the container counts the sampler last collected and never asks
 * Docker itself (spec, "Container counts": a Docker fan-out on the poll path is the incident in
 * which a healthy node overran its peers' poll budget and was marked unreachable). Two real Hubs
 * on loopback; Hub B counts a compose project through the fake Docker daemon (helpers/fake-docker)
 * that answers B's first collection and then, after hang(), accepts each request and holds it.
 *
 * The evidence is the fake's own record, not a clock: a Hub that asked Docker while answering a
 * poll would give up on the held request (after its Docker call timeout) before it could answer,
 * so the polls B answered after the hang must not have cost a given-up listing each.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LAB_COUNTS, startFakeDocker, type FakeDocker } from '../helpers/fake-docker.js';
import { START_TIMEOUT_MS, TEST_TIMEOUT_MS, usePool } from '../helpers/pool-fixture.js';

describe('container counts on the poll path', () => {
  let docker: FakeDocker;

  before(
    async () => {
      docker = await startFakeDocker();
    },
    { timeout: START_TIMEOUT_MS },
  );
  const pool = usePool<'a' | 'b'>(() => ({
    hubs: {
      a: { ollama: { models: ['a:1b'] } },
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

  it(
    'answers a peer from the stored sample while Docker hangs (a Docker fan-out on the poll path is that incident again)',
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const { a, b } = pool();
      assert.deepEqual((await a.waitForPeer(b, 'with container counts', (p) => p.containers !== null, 30_000)).containers, LAB_COUNTS);

      docker.hang();
      // The poll under way when Docker stopped answering may have begun before; the one after it did not.
      await a.nextPoll(b, 30_000);
      const polled = await a.nextPoll(b, 30_000);

      assert.equal(polled.status, 'connected');
      assert.deepEqual(polled.containers, LAB_COUNTS, 'the sample B collected before the hang, published as it was');
      // A Hub that asked Docker on the poll path gave up one listing per poll (two here). One may
      // be B's own once-a-minute collection, which lands in this window when a loaded machine
      // stretches the test past B's first minute.
      const givenUp = docker.held.filter((r) => r.closed && r.path === '/containers/json');
      assert.ok(givenUp.length <= 1, `B gave up ${givenUp.length} Docker listings while answering polls, so it waited on Docker to answer`);
    },
  );
});
