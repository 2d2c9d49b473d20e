/**
 * Only an engine's 500 is read for a verdict on the request. A peer marks what it relays from an
 * engine with X-Hub-Pool-Backend; a 500 without the mark is the peer Hub's own failure, which says
 * nothing about the request, so it fails over like any 5xx whatever its body says. (A Hub's own
 * error body is {"error":{"message":…}}, the OpenAI shape an engine's verdict is read from, so
 * read as an engine's it could turn the peer's fault into a 400 the app is told to fix.)
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Candidate } from '../placement/types.js';
import { localCandidate, NO_USER_TURN_MODEL, noUserTurnThroughWalk, rawEngine } from './walk.fixture.js';

const VERDICT_BODY = JSON.stringify({ error: { code: 'HUB_ERR_INTERNAL', message: 'no user query found in messages' } });
const SERVED = JSON.stringify({ model: NO_USER_TURN_MODEL, message: { role: 'assistant', content: 'hello' }, done: true });

interface Case {
  readonly name: string;
  /** The mark the peer puts on its 500, or none. */
  readonly mark: string | null;
  readonly status: number;
  readonly nextAsked: number;
  readonly failures: readonly unknown[];
}

const CASES: readonly Case[] = [
  {
    name: "a peer's own 500 (no mark) fails over to the next candidate, its body unread",
    mark: null,
    status: 200,
    nextAsked: 1,
    failures: [{ kind: 'status', status: 500, peerRefused: false }],
  },
  {
    name: "the same 500 marked as its Ollama's is that engine's verdict: the app gets it at once",
    mark: 'ollama',
    status: 400,
    nextAsked: 0,
    failures: [],
  },
];

describe("a peer's 500 whose body reads as a verdict", () => {
  const closers: (() => Promise<void>)[] = [];
  after(async () => {
    for (const close of closers) await close();
  });

  async function server(answer: (req: IncomingMessage, res: ServerResponse) => void) {
    const e = await rawEngine(answer);
    closers.push(e.close);
    return e;
  }

  for (const c of CASES) {
    it(c.name, async () => {
      const peer = await server((_req, res) =>
        res.writeHead(500, { 'content-type': 'application/json', ...(c.mark === null ? {} : { 'x-hub-pool-backend': c.mark }) }).end(VERDICT_BODY),
      );
      const next = await server((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(SERVED));
      const peerCandidate: Candidate = {
        id: 'hub-b.tail0.ts.net/pool',
        node: 'hub-b.tail0.ts.net',
        backendId: null,
        engine: null,
        url: peer.url,
        queueDepth: 0,
        loadReported: true,
        peerId: 'hub-b',
        hardwareTier: null,
        pressure: 1,
      };
      const {
        status: answered,
        body,
        settled: s,
      } = await noUserTurnThroughWalk([peerCandidate, localCandidate('ollama-1', next.url)], {
        deps: { peerAuth: async () => ({ authorization: 'Bearer test' }) },
      });
      assert.equal(answered, c.status, body);
      assert.equal(next.asked(), c.nextAsked);
      assert.deepEqual(
        s.failures.map((f) => f.failure),
        c.failures,
      );
    });
  }
});
