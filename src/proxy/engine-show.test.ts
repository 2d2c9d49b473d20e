/**
 * What one local Ollama's answer to /api/show means for the lookup, over a real socket: a
 * description (or the engine's verdict on the request) is relayed, a 404 sends the lookup on, and
 * an answer about the engine itself (down, queue full) sends it on too, named for the 502.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import type { BackendView } from '../engines/types.js';
import { askEngineShow } from './engine-show.js';

describe('askEngineShow: what a local Ollama answer to /api/show means', () => {
  let server: Server;
  let engine: BackendView;
  const dispatcher = new Agent();
  let status = 200;
  before(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ status })));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    engine = { backendId: 'ollama', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` } as BackendView;
  });
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
    await dispatcher.close();
  });

  const rows: { name: string; status: number; kind: string }[] = [
    { name: 'a description is relayed', status: 200, kind: 'answer' },
    { name: "the engine's verdict on the request is relayed", status: 400, kind: 'answer' },
    { name: 'not found: not held here (now), so the lookup goes on', status: 404, kind: 'not-held' },
    { name: 'a 500 is about the engine, not the model: the lookup goes on', status: 500, kind: 'failed' },
    { name: 'a 503 (queue full, loading): the lookup goes on', status: 503, kind: 'failed' },
    { name: 'a 429: the lookup goes on', status: 429, kind: 'failed' },
    { name: 'a 408: the lookup goes on', status: 408, kind: 'failed' },
  ];
  for (const row of rows) {
    it(row.name, async () => {
      status = row.status;
      const outcome = await askEngineShow(dispatcher, engine, Buffer.from('{"model":"m"}'), new AbortController().signal);
      assert.equal(outcome.kind, row.kind);
      if (outcome.kind === 'answer') assert.equal(outcome.status, row.status);
      if (outcome.kind === 'failed') assert.match(outcome.why, new RegExp(`^ollama at .* answered /api/show with HTTP ${row.status}$`));
    });
  }

  it('asks nothing once the app has gone', async () => {
    const gone = new AbortController();
    gone.abort();
    const outcome = await askEngineShow(dispatcher, engine, Buffer.from('{"model":"m"}'), gone.signal);
    assert.equal(outcome.kind, 'failed');
  });
});
