/**
 * Generated request bodies through the pool proxy, in both dialects (issue 15, item 4): a real
 * Hub process in front of a simulated Ollama and a simulated vLLM, reached over real sockets.
 * Whatever body an app sends to /v1/* or /api/*, the Hub answers it (never a 500 of its own,
 * never a dropped connection) in the route's dialect, stays up, and a body it refuses itself
 * reaches no engine and writes no routing-log row. After every case each in-flight count is
 * back at zero and no row is left pending. `npm test` tries a bounded number of cases per
 * dialect; `npm run test:fuzz` many more (test/helpers/fuzz-runs.ts).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { request } from 'undici';
import { startSimEngine, type SimEngine } from '../../src/sim/engine.js';
import type { RoutingLogPage } from '../../src/routing-log/entry.js';
import type { PoolStatus } from '../../src/status/pool-status.js';
import { eventually, startHubProcess, type HubProcess } from '../helpers/hub-process.js';
import { fuzzRuns } from '../helpers/fuzz-runs.js';

/** Each case is one proxied request and three reads: this many keep a dialect to a few seconds. */
const BOUNDED_RUNS = 40;
const CHAT = 'qwen3:8b';
const EMBED = 'nomic-embed-text';
const POOL = '/api/inference/pool';

type Dialect = 'openai' | 'ollama';
const ROUTES: Readonly<Record<Dialect, readonly string[]>> = {
  openai: ['/v1/chat/completions', '/v1/completions', '/v1/embeddings'],
  ollama: ['/api/chat', '/api/generate', '/api/embed', '/api/embeddings'],
};
/** Statuses the Hub itself answers to a body it will not place: not JSON, wrong types, untyped. */
const BODY_REFUSALS = new Set([400, 413, 415]);

/** Anything JSON can hold, a few levels deep, and the awkward values. */
const anyJson = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(null, true, -1, 0, 1e308, -1e308, 2 ** 53 + 1, 0.5, '', '\u0000', '\u202e', [], {}, { __proto__: { model: CHAT } }),
);
/** Raw text that is mostly not JSON: line breaks, NULs, lone surrogates, half a document. */
const anyText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.constantFrom('{', '{"model":', '{"model":"qwen3:8b"', '[]', 'null', '{"model":"qwen3:8b"}garbage', '\uFEFF{"model":"qwen3:8b","prompt":"hi"}'),
);
const model = fc.oneof(
  fc.constantFrom(
    CHAT,
    EMBED,
    'auto',
    'qwen3',
    'QWEN3:8B',
    'no-such-model',
    ' ',
    '',
    'x'.repeat(256),
    'x'.repeat(257),
    '../../etc/passwd',
    'qwen3:8b\r\nX-Injected: 1',
  ),
  anyJson,
);
const message = fc.oneof(
  anyJson,
  fc.record(
    { role: fc.oneof(fc.constantFrom('user', 'system', 'assistant', 'tool', 'admin'), anyJson), content: fc.oneof(fc.string({ maxLength: 60 }), anyJson) },
    { requiredKeys: [] },
  ),
);
const options = fc.oneof(
  anyJson,
  fc.record(
    {
      num_ctx: fc.oneof(fc.integer({ min: -5, max: 10_000_000 }), anyJson),
      temperature: anyJson,
      num_predict: fc.oneof(fc.integer({ min: -2, max: 64 }), anyJson),
    },
    { requiredKeys: [] },
  ),
);
/** An object body shaped like a real request, each field sometimes of the wrong type. */
const nearRequest = fc
  .record(
    {
      model,
      stream: fc.oneof(fc.boolean(), anyJson),
      messages: fc.oneof(fc.array(message, { maxLength: 4 }), anyJson),
      prompt: fc.oneof(fc.string({ maxLength: 80 }), anyJson),
      input: fc.oneof(fc.string({ maxLength: 40 }), fc.array(fc.string({ maxLength: 20 }), { maxLength: 3 }), anyJson),
      options,
      max_tokens: fc.oneof(fc.integer({ min: -1, max: 32 }), anyJson),
      keep_alive: anyJson,
      extra: anyJson,
    },
    { requiredKeys: [] },
  )
  .map((o) => JSON.stringify(o));
const body = fc.oneof(
  { weight: 3, arbitrary: nearRequest },
  { weight: 1, arbitrary: anyJson.map((v) => JSON.stringify(v) ?? 'null') },
  { weight: 1, arbitrary: anyText },
);
const contentType = fc.oneof(
  { weight: 8, arbitrary: fc.constant('application/json') },
  { weight: 1, arbitrary: fc.constantFrom('application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', '') },
);

describe('generated request bodies through the pool proxy', () => {
  let ollama: SimEngine;
  let vllm: SimEngine;
  let hub: HubProcess;

  before(async () => {
    const models = [
      { name: CHAT, answerTokens: 8 },
      { name: EMBED, capabilities: ['embedding'] },
    ];
    ollama = await startSimEngine({ dialect: 'ollama', models, timeScale: 0.01 });
    vllm = await startSimEngine({ dialect: 'vllm', models: [{ name: CHAT, answerTokens: 8 }], timeScale: 0.01 });
    hub = await startHubProcess({ env: { OLLAMA_URL: ollama.url, VLLM_URL: vllm.url } });
  });
  after(async () => {
    await hub?.stop();
    await Promise.all([ollama?.close(), vllm?.close()]);
  });

  const engineRequests = () => ollama.state().requests + vllm.state().requests;
  async function rowsRecorded(): Promise<number> {
    const res = await hub.api<RoutingLogPage>('GET', `${POOL}/routing-log?limit=1`);
    assert.equal(res.status, 200);
    return res.json.summary.totalRecorded;
  }
  /** Every count the Hub keeps is back at zero, and no row is pending. */
  async function quiet(): Promise<void> {
    await eventually(async () => {
      const status = (await hub.api<PoolStatus>('GET', `${POOL}/status`)).json;
      const rows = (await hub.api<RoutingLogPage>('GET', `${POOL}/routing-log?limit=500`)).json.entries;
      return status.localNode.queueDepth === 0 && status.localNode.backends.every((b) => b.inFlight === 0) && rows.every((r) => r.outcome !== 'pending');
    }, 'in-flight counts at zero and no pending row');
  }

  for (const dialect of ['openai', 'ollama'] as const) {
    it(`answers any ${dialect} body without a 500, in the dialect, and a body it refuses reaches no engine and writes no row`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...ROUTES[dialect]), body, contentType, async (path, payload, type) => {
          const engineBefore = engineRequests();
          const rowsBefore = await rowsRecorded();
          const res = await request(`${hub.pool}${path}`, { method: 'POST', headers: type === '' ? {} : { 'content-type': type }, body: payload });
          const text = await res.body.text();
          const what = `${res.statusCode} on ${path} (${type}) for ${JSON.stringify(payload).slice(0, 300)}: ${text.slice(0, 300)}`;
          assert.notEqual(res.statusCode, 500, what);
          assert.ok(res.statusCode >= 200 && res.statusCode < 600, what);
          if (res.statusCode >= 400) {
            const error = (JSON.parse(text) as { error?: unknown }).error;
            if (dialect === 'ollama') assert.equal(typeof error, 'string', `Ollama-shaped error: ${what}`);
            else assert.equal(typeof (error as { message?: unknown } | undefined)?.message, 'string', `OpenAI-shaped error: ${what}`);
          }
          if (BODY_REFUSALS.has(res.statusCode) && engineRequests() === engineBefore) {
            assert.equal(await rowsRecorded(), rowsBefore, `a refused body left a routing-log row: ${what}`);
          }
          await quiet();
        }),
        { numRuns: fuzzRuns(BOUNDED_RUNS) },
      );
      assert.equal(hub.child.exitCode, null, 'the Hub is still running');
    });
  }
});
