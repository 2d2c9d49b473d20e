import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import type { BackendView } from '../engines/types.js';
import { ManualClock } from '../util/clock.js';
import { releaseResident, residentModels } from './residency-release.js';
import { engineModelKey, WithholdBook } from './withhold-book.js';
import { backendViewFixture } from '../engines/backend-view.fixture.js';

describe('releaseResident', () => {
  let server: Server;
  let url = '';
  let psCalls = 0;
  const dispatcher = new Agent();
  before(async () => {
    server = createServer((req, res) => {
      if (req.url === '/api/ps') psCalls += 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ models: [{ name: 'gemma3:1b', model: 'gemma3:1b' }] }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.close();
    await dispatcher.close();
  });
  const backend = (): BackendView => backendViewFixture([], { url });
  const withhold = (book: WithholdBook, model: string) => {
    book.strike(engineModelKey('local', 'ollama', model), 'HTTP 500');
    book.strike(engineModelKey('local', 'ollama', model), 'HTTP 500');
  };

  it('asks /api/ps only while something is withheld', async () => {
    const before = psCalls;
    await releaseResident([backend()], new WithholdBook(new ManualClock()), dispatcher, () => {});
    assert.equal(psCalls, before);
  });

  it('releases a withheld model the engine shows resident, and keeps one it does not', async () => {
    const book = new WithholdBook(new ManualClock());
    withhold(book, 'gemma3:1b');
    withhold(book, 'qwen3:8b');
    const released: string[] = [];
    await releaseResident([backend()], book, dispatcher, (_b, model) => released.push(model));
    assert.deepEqual(released, ['gemma3:1b']);
    assert.equal(book.isWithheld(engineModelKey('local', 'ollama', 'gemma3:1b')), false);
    assert.equal(book.isWithheld(engineModelKey('local', 'ollama', 'qwen3:8b')), true);
  });

  it('reads no residency from a body that is not /api/ps', () => assert.equal(residentModels({ data: [] }), null));
});
