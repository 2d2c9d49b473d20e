import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HubError, type ErrorCode } from '../errors.js';
import { forwardBody, readRequestFacts } from './request-facts.js';
import { ROUTED_ROUTES, type RoutedRoute } from './route-table.js';

function route(path: string): RoutedRoute {
  const found = ROUTED_ROUTES.find((r) => r.path === path);
  if (!found) throw new Error(`no routed route ${path}`);
  return found;
}

const body = (value: unknown) => Buffer.from(JSON.stringify(value));

describe('readRequestFacts: stream defaults per route', () => {
  const cases: readonly { name: string; path: string; stream?: boolean | null; expected: boolean }[] = [
    { name: '/api/chat streams when the body does not say', path: '/api/chat', expected: true },
    { name: '/api/chat streams with stream:null, as Ollama reads it', path: '/api/chat', stream: null, expected: true },
    { name: '/v1/chat/completions does not stream with stream:null', path: '/v1/chat/completions', stream: null, expected: false },
    { name: '/api/chat does not stream with stream:false', path: '/api/chat', stream: false, expected: false },
    { name: '/api/chat streams with stream:true', path: '/api/chat', stream: true, expected: true },
    { name: '/api/generate streams when the body does not say', path: '/api/generate', expected: true },
    { name: '/api/generate does not stream with stream:false', path: '/api/generate', stream: false, expected: false },
    { name: '/v1/chat/completions does not stream when the body does not say', path: '/v1/chat/completions', expected: false },
    { name: '/v1/chat/completions streams only with stream:true', path: '/v1/chat/completions', stream: true, expected: true },
    { name: '/v1/chat/completions does not stream with stream:false', path: '/v1/chat/completions', stream: false, expected: false },
    { name: '/v1/completions does not stream when the body does not say', path: '/v1/completions', expected: false },
    { name: '/v1/completions streams with stream:true', path: '/v1/completions', stream: true, expected: true },
    { name: '/api/embed does not stream when the body does not say', path: '/api/embed', expected: false },
    { name: '/v1/embeddings does not stream when the body does not say', path: '/v1/embeddings', expected: false },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const payload = c.stream === undefined ? { model: 'm' } : { model: 'm', stream: c.stream };
      assert.equal(readRequestFacts(body(payload), route(c.path)).stream, c.expected);
    });
  }
});

describe('readRequestFacts: num_ctx', () => {
  const cases: readonly { name: string; path: string; options: unknown; expected: number | null }[] = [
    { name: 'read from options on /api/chat', path: '/api/chat', options: { num_ctx: 16_384 }, expected: 16_384 },
    { name: 'read from options on /api/generate', path: '/api/generate', options: { num_ctx: 8192 }, expected: 8192 },
    { name: 'ignored on /v1/chat/completions, where no engine reads it', path: '/v1/chat/completions', options: { num_ctx: 16_384 }, expected: null },
    { name: 'null when the native body names none', path: '/api/chat', options: { temperature: 0 }, expected: null },
    { name: 'null without options', path: '/api/chat', options: undefined, expected: null },
    { name: 'null for a fraction', path: '/api/chat', options: { num_ctx: 4096.5 }, expected: null },
    { name: 'null for zero', path: '/api/chat', options: { num_ctx: 0 }, expected: null },
    { name: 'null for a string', path: '/api/chat', options: { num_ctx: '4096' }, expected: null },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.equal(readRequestFacts(body({ model: 'm', options: c.options }), route(c.path)).numCtx, c.expected);
    });
  }
});

describe('readRequestFacts: the model', () => {
  it('reads the model the app named', () => {
    const facts = readRequestFacts(body({ model: 'qwen3-coder:30b', messages: [] }), route('/v1/chat/completions'));
    assert.equal(facts.model, 'qwen3-coder:30b');
    assert.deepEqual(facts.json, { model: 'qwen3-coder:30b', messages: [] });
  });

  it('reads a missing model as null', () => {
    assert.equal(readRequestFacts(body({ messages: [] }), route('/api/chat')).model, null);
  });

  it('reads a blank model as null', () => {
    assert.equal(readRequestFacts(body({ model: '   ' }), route('/api/chat')).model, null);
  });
});

describe('readRequestFacts: bodies it refuses', () => {
  const cases: readonly { name: string; raw: Buffer; code: ErrorCode; message: RegExp }[] = [
    { name: 'an empty body', raw: Buffer.alloc(0), code: 'HUB_ERR_INVALID_JSON', message: /no body/ },
    { name: 'malformed JSON', raw: Buffer.from('{"model": "m",'), code: 'HUB_ERR_INVALID_JSON', message: /not valid JSON/ },
    { name: 'a JSON array', raw: body([{ model: 'm' }]), code: 'HUB_ERR_INVALID_JSON', message: /must be a JSON object/ },
    { name: 'a JSON string', raw: body('model'), code: 'HUB_ERR_INVALID_JSON', message: /must be a JSON object/ },
    { name: 'JSON null', raw: Buffer.from('null'), code: 'HUB_ERR_INVALID_JSON', message: /must be a JSON object/ },
    { name: 'a numeric model', raw: body({ model: 7 }), code: 'HUB_ERR_BAD_REQUEST', message: /model must be a string; got number/ },
    { name: 'an object model', raw: body({ model: { name: 'm' } }), code: 'HUB_ERR_BAD_REQUEST', message: /model must be a string; got object/ },
    { name: 'a string stream', raw: body({ model: 'm', stream: 'true' }), code: 'HUB_ERR_BAD_REQUEST', message: /stream must be true or false; got "true"/ },
    { name: 'a numeric stream', raw: body({ model: 'm', stream: 1 }), code: 'HUB_ERR_BAD_REQUEST', message: /stream must be true or false; got 1/ },
  ];
  for (const c of cases) {
    it(`refuses ${c.name} with ${c.code} (400) and says why`, () => {
      assert.throws(
        () => readRequestFacts(c.raw, route('/api/chat')),
        (err: unknown) => {
          assert.ok(err instanceof HubError);
          assert.equal(err.code, c.code);
          assert.equal(err.status, 400);
          assert.match(err.message, c.message);
          return true;
        },
      );
    });
  }
});

describe('forwardBody', () => {
  it("returns the very same Buffer when the model is unchanged, so the app's bytes go out untouched", () => {
    const raw = Buffer.from('{ "model" : "llama3.2:3b",  "messages": [] }');
    const facts = readRequestFacts(raw, route('/api/chat'));
    assert.equal(forwardBody(raw, facts, 'llama3.2:3b'), raw);
  });

  it('re-serialises with the resolved model when auto was replaced, keeping every other field', () => {
    const raw = body({ model: 'auto', messages: [{ role: 'user', content: 'hi' }], options: { num_ctx: 8192 } });
    const facts = readRequestFacts(raw, route('/api/chat'));
    const out = forwardBody(raw, facts, 'qwen3:8b');
    assert.notEqual(out, raw);
    assert.deepEqual(JSON.parse(out.toString('utf8')), { model: 'qwen3:8b', messages: [{ role: 'user', content: 'hi' }], options: { num_ctx: 8192 } });
    assert.equal(facts.json.model, 'auto', 'the parsed body is not mutated');
  });
});
