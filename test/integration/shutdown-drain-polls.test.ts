/**
 * A Hub that has been told to stop starts no health poll of its peers while it drains (commit
 * 06e2419 stops the poller when SIGTERM arrives; before, it ran on until the drain was over).
 * shutdown-hung-peer.test.ts shows a probe already out is cut; this shows no new one begins,
 * over a drain long enough for the poll interval to come round three times.
 *
 * A reaches B only through an HTTP relay in this process that counts the health polls it
 * carries (GET /capabilities). A holds one request its own engine never answers, so its drain
 * runs the whole 30 s to its deadline; the poll interval is the shortest the settings allow,
 * 10 s. SIGTERM goes to A the moment a poll reaches the relay, so the next one would be due 10 s
 * into the drain. The evidence is the relay's count and A's own log: the drain deadline line
 * proves the drain outlasted the interval, and no poll arrived at B after SIGTERM.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request as forward, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HeldRequests, LONG_TEST_TIMEOUT_MS, POOL_API, START_TIMEOUT_MS, startPool, waitConnected, type Pool } from '../helpers/pool-fixture.js';
import { logMessages } from '../helpers/hub-process.js';

const HOLD = 'hold:1b';
const POLL_SECONDS = 10;

/** An HTTP relay to a Hub on loopback that passes every request on and counts the health polls among them. */
class PollCountingRelay {
  readonly #server: Server;
  #polls = 0;
  #waiters: (() => void)[] = [];

  private constructor(server: Server) {
    this.#server = server;
  }

  static async start(targetPort: number): Promise<PollCountingRelay> {
    const server = createServer();
    const relay = new PollCountingRelay(server);
    server.on('request', (req, res) => {
      if (req.method === 'GET' && (req.url ?? '').startsWith(`${POOL_API}/capabilities`)) relay.#counted();
      const upstream = forward({ host: '127.0.0.1', port: targetPort, method: req.method, path: req.url, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return relay;
  }

  get origin(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  /** The health polls that have reached the relay so far. */
  get polls(): number {
    return this.#polls;
  }

  /** Settles as the next health poll reaches the relay, before it is passed on. */
  nextPoll(): Promise<void> {
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise((resolve) => this.#server.close(resolve));
  }

  #counted(): void {
    this.#polls++;
    for (const wake of this.#waiters.splice(0)) wake();
  }
}

describe('health polls while a Hub drains after SIGTERM', () => {
  let pool: Pool<'a' | 'b'>;
  let relay: PollCountingRelay;
  let held: HeldRequests;

  before(
    async () => {
      pool = await startPool<'a' | 'b'>({
        hubs: { a: { ollama: { models: [HOLD] } }, b: { ollama: { models: ['b:1b'] } } },
        pairs: [['a', 'b']],
        settings: { poolHealthPollSeconds: POLL_SECONDS },
      });
      const { a, b } = pool;
      relay = await PollCountingRelay.start(b.port);
      // From now on A reaches B only through the relay.
      await a.restart({ HUB_POOL_PEER_ORIGINS: `${b.name}=${relay.origin}` });
      await waitConnected(a, b);
      await a.engines.ollama!.setFault({ mode: 'hang', model: HOLD });
      held = new HeldRequests(a, HOLD);
    },
    { timeout: START_TIMEOUT_MS },
  );
  after(
    async () => {
      await held?.releaseAll();
      await pool?.stop();
      await relay?.close();
    },
    { timeout: START_TIMEOUT_MS },
  );

  it('starts no poll of a peer during the drain, though the drain outlasts the poll interval', { timeout: LONG_TEST_TIMEOUT_MS }, async () => {
    const { a } = pool;
    await held.hold(1);
    await relay.nextPoll();
    const atSigterm = relay.polls;
    const code = await a.process.stop('SIGTERM');
    assert.equal(code, 0, a.log());

    const msgs = logMessages(a.log());
    const stopping = msgs.findIndex((m) => m.startsWith('hub stopping'));
    const deadline = msgs.indexOf('drain deadline reached: closing 1 request(s) still open');
    const stopped = msgs.indexOf('hub stopped');
    assert.ok(stopping >= 0 && deadline > stopping && stopped > deadline, `the held request kept A draining to the 30 s deadline:\n${a.log()}`);
    assert.equal(relay.polls - atSigterm, 0, `${relay.polls - atSigterm} health poll(s) of B began while A drained`);
  });
});
