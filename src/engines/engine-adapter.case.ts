/**
 * Test-only: the contract every EngineAdapter keeps, as one suite each adapter's test runs
 * against itself (Hono's common.case pattern). What differs per engine is only where it is
 * asked and what a healthy answer looks like; everything else here must hold for all of them.
 */
import { describe, it, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { Agent } from 'undici';
import type { EngineAdapter } from './engine-adapter.js';
import { startFakeEngine, type FakeEngine, type FakeReply } from './fake-engine.testkit.js';
import { refusedUrl } from '../../test/helpers/refused-port.js';

export interface AdapterCase {
  readonly adapter: EngineAdapter;
  /** The path the probe asks, relative to the engine's base URL. */
  readonly probePath: string;
  /** A healthy answer listing these models, in the engine's own shape. */
  healthy(...models: string[]): FakeReply;
}

export function runAdapterContract(c: AdapterCase): void {
  describe(`${c.adapter.kind} adapter: the shared engine contract`, () => {
    let engine: FakeEngine;
    let reply: FakeReply;
    const dispatcher = new Agent();
    const live = () => new AbortController().signal;

    before(async () => {
      engine = await startFakeEngine((path) => (path === c.probePath ? reply : { status: 404, text: '404 page not found' }));
    });
    beforeEach(() => {
      reply = c.healthy('model-a', 'model-b');
    });
    after(async () => {
      await engine.close();
      await dispatcher.destroy();
    });

    it('probes its own path once and reports a healthy engine with its models', async () => {
      const asked = engine.paths.length;
      const answer = await c.adapter.probe(engine.url, dispatcher, live());
      assert.deepEqual(engine.paths.slice(asked), [c.probePath]);
      assert.deepEqual(
        { running: answer.running, healthy: answer.healthy, error: answer.error, models: answer.models.map((m) => m.name) },
        { running: true, healthy: true, error: null, models: ['model-a', 'model-b'] },
      );
    });

    it('reports an engine with nothing pulled as healthy with no models', async () => {
      reply = c.healthy();
      const answer = await c.adapter.probe(engine.url, dispatcher, live());
      assert.deepEqual([answer.running, answer.healthy, answer.models], [true, true, []]);
    });

    it('reads a 5xx as running but not healthy, naming the status', async () => {
      reply = { status: 503, text: 'loading' };
      const answer = await c.adapter.probe(engine.url, dispatcher, live());
      assert.deepEqual([answer.running, answer.healthy, answer.error, answer.models], [true, false, 'HTTP 503', []]);
    });

    it('reads a body that is not JSON as running but not healthy', async () => {
      reply = { text: '<html>welcome</html>' };
      const answer = await c.adapter.probe(engine.url, dispatcher, live());
      assert.deepEqual([answer.running, answer.healthy], [true, false]);
      assert.match(answer.error ?? '', /not JSON/);
    });

    it('reads JSON in another shape as running but not healthy', async () => {
      reply = { json: { hello: 'world' } };
      const answer = await c.adapter.probe(engine.url, dispatcher, live());
      assert.deepEqual([answer.running, answer.healthy, answer.models], [true, false, []]);
      assert.notEqual(answer.error, null);
    });

    it('reads a refused connection as not running, with the transport code', async () => {
      const answer = await c.adapter.probe(await refusedUrl(), dispatcher, live());
      assert.deepEqual([answer.running, answer.healthy, answer.models], [false, false, []]);
      assert.match(answer.error ?? '', /ECONNREFUSED/);
    });

    it('answers an aborted probe instead of throwing', async () => {
      const controller = new AbortController();
      controller.abort();
      const answer = await c.adapter.probe(engine.url, dispatcher, controller.signal);
      assert.deepEqual([answer.running, answer.healthy, answer.error], [false, false, 'aborted']);
    });

    it('speaks the OpenAI dialect', () => {
      assert.equal(c.adapter.speaks('openai'), true);
    });

    for (const path of ['/v1/chat/completions', '/v1/completions', '/v1/embeddings', '/v1/models']) {
      it(`relays ${path} to a path ending in the same route`, () => {
        const upstream = c.adapter.upstreamPath(path);
        assert.notEqual(upstream, null);
        assert.ok(upstream?.endsWith(path.slice('/v1'.length)), `${upstream}`);
      });
    }

    for (const path of ['/api/pull', '/api/delete', '/api/create', '/api/copy', '/api/push']) {
      it(`never relays model management (${path})`, () => assert.equal(c.adapter.upstreamPath(path), null));
    }
  });
}
