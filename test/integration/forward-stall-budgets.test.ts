/**
 * An app that stops reading a forwarded answer, between two Hubs whose budgets are set far apart:
 * the sending Hub is the one that decides the app has gone, however the peer is configured.
 *
 * A (the sender) gives its requests a 6 s budget; B (the peer serving A's forward) gives its own
 * 500 ms. When A's app stops reading, A's relay pauses, B's bytes back up behind it, and B's relay
 * pauses in turn, so each Hub's stall watch (proxy/app-stall.ts) is counting. Before the sender
 * stated its stall budget on the forward (X-Hub-Pool-Stall-Ms), B waited twice its own budget,
 * 1 s, and cut first: an app that paused for a couple of seconds got a truncated answer, which
 * A's row recorded as a fault of B's engine; and for an app gone for good the cut was B's, not A's.
 *
 * B's engine is a front (test/helpers/engine-front.ts) whose completion this test answers itself:
 * large NDJSON frames written as fast as the Hubs take them, so the buffers between the engine
 * and the app (about 15 MB on loopback here) fill within a fraction of a second. The app is a raw
 * socket that reads the response head and then stops reading.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { startSimEngine, type SimEngine } from '../../src/sim/engine.js';
import { chatFrame, rfc3339Nano } from '../../src/sim/ollama-frames.js';
import { startEngineFront, type EngineFront } from '../helpers/engine-front.js';
import { eventually } from '../helpers/hub-process.js';
import { TEST_TIMEOUT_MS, usePool, type PoolHub } from '../helpers/pool-fixture.js';

const MODEL = 'peer-only:8b';
/** A's budget for these requests (its floor: the prompt is tiny), and so how long it waits on an app that takes nothing. */
const SENDER_BUDGET_MS = 6_000;
/**
 * B's: a twelfth of A's, far past the factor of two its old wait allowed for; long enough that
 * B's engine (in this process) never looks silent to B while the answer flows.
 */
const PEER_BUDGET_MS = 500;
/** An app's pause longer than twice B's budget and shorter than A's: A must not cut it, so B must not. */
const APP_PAUSE_MS = 3_000;
/** A finite answer about twice what the loopback buffers between B's engine and the app hold, so B's relay does pause. */
const ANSWER_BYTES = 32 * 1024 * 1024;
/** One frame of the answer: ~16 KB, written again and again (one buffer, so the engine side allocates nothing per write). */
const FRAME = Buffer.from(`${JSON.stringify(chatFrame(MODEL, 'a'.repeat(16_000)))}\n`);
const FINAL_FRAME = `${JSON.stringify({ model: MODEL, created_at: rfc3339Nano(), message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop', eval_count: 2_048 })}\n`;

/** Answers a streamed chat with `bytes` of frames and a final frame, as fast as the Hub takes them; Infinity never ends. */
function answerOf(bytes: number): (req: unknown, res: ServerResponse) => void {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/x-ndjson' });
    let sent = 0;
    const write = (): void => {
      while (!res.destroyed && sent < bytes) {
        sent += FRAME.length;
        if (!res.write(FRAME)) {
          res.once('drain', write);
          return;
        }
      }
      if (!res.destroyed) res.end(FINAL_FRAME);
    };
    write();
  };
}

/** An app on a raw socket: it sends a streamed chat to A, reads the response head, and stops reading. Resolves with the request id A answered with. */
async function appThatStopsReading(a: PoolHub): Promise<{ socket: Socket; requestId: string }> {
  const { hostname, port } = new URL(a.url);
  const socket = connect({ host: hostname, port: Number(port) });
  const body = JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] });
  socket.write(
    `POST /api/inference/pool/api/chat HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  const head = await new Promise<string>((resolve, reject) => {
    let seen = '';
    const onData = (chunk: Buffer): void => {
      seen += chunk.toString('latin1');
      if (!seen.includes('\r\n\r\n')) return;
      // Paused in the same turn as the head arrived: from here the app takes nothing.
      socket.pause();
      socket.off('data', onData);
      resolve(seen);
    };
    socket.on('data', onData);
    socket.once('error', reject);
  });
  assert.match(head, /^HTTP\/1\.1 200 /, head.slice(0, 200));
  const requestId = /\r\nx-hub-pool-request-id: ([0-9a-f-]+)\r\n/i.exec(head)?.[1];
  assert.ok(requestId, 'A named the request');
  return { socket, requestId };
}

describe("an app that stops reading a forwarded answer, the peer configured with a budget a twelfth of the sender's", () => {
  let engine: SimEngine;
  let front: EngineFront;
  before(async () => {
    engine = await startSimEngine({ dialect: 'ollama', models: [MODEL], timeScale: 0.01 });
    front = await startEngineFront(engine.url);
  });
  const pool = usePool<'a' | 'b'>(() => ({
    hubs: {
      a: { env: { HUB_POOL_FIRST_BYTE_TIMEOUT_MS: String(SENDER_BUDGET_MS) } },
      b: { env: { OLLAMA_URL: front.url, HUB_POOL_FIRST_BYTE_TIMEOUT_MS: String(PEER_BUDGET_MS) } },
    },
    pairs: [['a', 'b']],
  }));
  before(async () => {
    const { a, b } = pool();
    await eventually(async () => (await a.peer(b))?.backends?.some((e) => e.models.includes(MODEL)), `A to hold B's ${MODEL}`);
  });
  after(async () => {
    await front.close();
    await engine.close();
  });

  it(
    "is cut by the sending Hub, whose row reads as the app's hang-up; the peer waits on it for at least the sender's budget",
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const { a, b } = pool();
      front.takeNextCompletion(answerOf(Infinity));
      const { socket, requestId } = await appThatStopsReading(a);
      try {
        const sent = await a.settledRow(requestId, 30_000);
        const served = await b.settledRow(requestId, 30_000);
        assert.deepEqual(
          { outcome: sent.outcome, clientClosed: sent.clientClosed, status: sent.status, requestError: sent.requestError, budgetMs: sent.budgetMs },
          { outcome: 'failed', clientClosed: true, status: 200, requestError: null, budgetMs: SENDER_BUDGET_MS },
          "A's row is its app's hang-up, not a failure of B",
        );
        assert.deepEqual({ clientClosed: served.clientClosed, budgetMs: served.budgetMs }, { clientClosed: true, budgetMs: PEER_BUDGET_MS });
        // B's row ends when A's cut reaches it: after A's row, and not before A's whole budget.
        assert.ok(
          Date.parse(served.updatedAt) >= Date.parse(sent.updatedAt),
          `B's row settled at ${served.updatedAt}, before A's at ${sent.updatedAt}: B cut first`,
        );
        assert.ok(
          served.totalMs !== null && served.totalMs >= SENDER_BUDGET_MS,
          `B gave up on A after ${served.totalMs} ms, within A's ${SENDER_BUDGET_MS} ms budget`,
        );
      } finally {
        socket.destroy();
      }
    },
  );

  it("gets its whole answer when it reads again within the sender's budget, and neither row records a fault", { timeout: TEST_TIMEOUT_MS }, async () => {
    const { a, b } = pool();
    front.takeNextCompletion(answerOf(ANSWER_BYTES));
    const { socket, requestId } = await appThatStopsReading(a);
    try {
      // The app's pause is what is under test, not a wait for the Hubs: its length sits between
      // B's old wait (twice its own budget) and A's budget.
      await sleep(APP_PAUSE_MS);
      let tail = '';
      const ended = new Promise<string>((resolve) => {
        socket.on('data', (chunk: Buffer) => {
          tail = (tail + chunk.toString('latin1')).slice(-512);
          // The chunked body's last chunk: the answer ended as its sender ended it.
          if (tail.endsWith('\r\n0\r\n\r\n')) resolve('ended');
        });
        socket.once('close', () => resolve('closed'));
      });
      socket.resume();
      assert.equal(await ended, 'ended', 'the answer reached its end, not a closed connection');
      assert.match(tail, /"done":true/, 'the final frame arrived');

      const sent = await a.settledRow(requestId, 30_000);
      const served = await b.settledRow(requestId, 30_000);
      assert.deepEqual(
        { outcome: sent.outcome, clientClosed: sent.clientClosed, requestError: sent.requestError, reason: sent.reason },
        { outcome: 'served', clientClosed: false, requestError: null, reason: null },
        "A's row: served, with no fault against B's engine",
      );
      assert.deepEqual({ outcome: served.outcome, clientClosed: served.clientClosed }, { outcome: 'served', clientClosed: false });
    } finally {
      socket.destroy();
    }
  });
});
