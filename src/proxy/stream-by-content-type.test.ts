/**
 * An engine's answer labelled as a stream (application/x-ndjson, text/event-stream) is relayed as
 * a stream even when the request did not ask for one: read whole first, as a non-streamed
 * completion is, the app would get nothing until the generation ended. Each case below asks for
 * no stream and has the engine send one frame and hold the rest; the app must read that frame
 * while the engine still holds the rest.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { ROUTED_ROUTES } from './route-table.js';
import { localCandidate, startWalkApp, walkDeps } from './walk.fixture.js';

const MODEL = 'qwen3:8b';

interface Case {
  readonly name: string;
  readonly path: string;
  /** What the app's body says about streaming: false, or nothing (the route's own default is no stream). */
  readonly stream: false | undefined;
  readonly contentType: string;
  readonly first: string;
  readonly last: string;
}

const CASES: readonly Case[] = [
  {
    name: 'an Ollama stream (application/x-ndjson) to a chat that said stream: false',
    path: '/api/chat',
    stream: false,
    contentType: 'application/x-ndjson',
    first: `${JSON.stringify({ model: MODEL, message: { role: 'assistant', content: 'hi' }, done: false })}\n`,
    last: `${JSON.stringify({ model: MODEL, message: { role: 'assistant', content: '' }, done: true })}\n`,
  },
  {
    name: 'an OpenAI-compatible stream (text/event-stream) to a chat completion that did not ask for one',
    path: '/v1/chat/completions',
    stream: undefined,
    contentType: 'text/event-stream',
    first: `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'hi' }, finish_reason: null }] })}\n\n`,
    last: `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`,
  },
];

describe('an answer labelled as a stream, to a request that asked for none', () => {
  const closers: (() => Promise<void>)[] = [];
  after(async () => {
    for (const close of closers) await close();
  });

  for (const c of CASES) {
    it(`${c.name}: relayed as it comes, the first frame before the engine has finished`, { timeout: 30_000 }, async () => {
      let held: ServerResponse | null = null;
      const engine = createServer((req, res) => {
        req.resume();
        req.on('end', () => {
          res.writeHead(200, { 'content-type': c.contentType });
          res.write(c.first);
          held = res;
        });
      });
      await new Promise<void>((resolve) => engine.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(engine.address() as AddressInfo).port}`;
      const deps = walkDeps();
      const route = ROUTED_ROUTES.find((r) => r.path === c.path)!;
      const app = await startWalkApp(deps, () => ({ route, model: MODEL, stream: false, order: [localCandidate('ollama-1', url)] }));
      closers.push(async () => {
        held?.end();
        await app.close();
        await deps.dispatcher.close();
        engine.closeAllConnections();
        await new Promise<void>((resolve) => engine.close(() => resolve()));
      });

      const body: Record<string, unknown> = { model: MODEL, messages: [{ role: 'user', content: 'hi' }] };
      if (c.stream !== undefined) body.stream = c.stream;
      const res = await request(`${app.url}${c.path}`, { method: 'POST', body: JSON.stringify(body) });
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers['content-type']), new RegExp(c.contentType.replace('/', '\\/')));

      // Read until the first frame has arrived; the engine is still holding the rest.
      const reader = res.body[Symbol.asyncIterator]();
      let text = '';
      while (text.length < c.first.length) {
        const next = await reader.next();
        assert.equal(next.done, false, 'the body ended before its first frame arrived');
        text += (next.value as Buffer).toString();
      }
      assert.equal(text, c.first);
      assert.notEqual(held, null);

      held!.end(c.last);
      for (let next = await reader.next(); !next.done; next = await reader.next()) text += (next.value as Buffer).toString();
      assert.equal(text, c.first + c.last);
    });
  }
});
