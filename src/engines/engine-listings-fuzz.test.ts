/**
 * Generated hostile answers to the engine reads (issue 15, item 4): Ollama's /api/tags and
 * /api/ps, the OpenAI-style /v1/models, vLLM's /metrics text and llama.cpp's /slots. An engine
 * is untrusted, so whatever shape, type or size it answers with, each parser returns (never
 * throws), keeps only what it can read, and stays inside its stated bounds: no more models than
 * MAX_ENGINE_MODELS, no name longer than MAX_MODEL_NAME_LENGTH, no size that is not a positive
 * finite number, no queue figure that is negative, fractional or past MAX_REPORTED_REQUESTS.
 * Inputs arrive the way the readers get them: JSON text parsed as it would be off the wire (so
 * `__proto__` is an own key), or raw text for /metrics.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { fuzzRuns } from '../../test/helpers/fuzz-runs.js';
import { parseJsonOrUndefined } from '../util/bounded-read.js';
import { MAX_MODEL_NAME_LENGTH } from './model-name.js';
import { MAX_ENGINE_MODELS, parseModelList, parseTags, relayableEntries, residentModels } from './engine-answers.js';
import { MAX_REPORTED_REQUESTS } from './engine-queue.js';
import { MAX_LLAMACPP_SLOTS, parseLlamaSlots } from './llamacpp-slots.js';
import type { ModelInfo } from './types.js';
import { parseVllmQueue } from './vllm-metrics.js';

/** Pure and cheap: a few hundred cases per property take well under a second. */
const BOUNDED_RUNS = 300;

/** Values an engine could put where a field belongs: every JSON type, and the awkward numbers. */
const oddScalar = fc.oneof(
  fc.constantFrom(null, true, false, 0, -0, -1, 1, 0.5, -1e308, 1e308, 2 ** 53 + 1, '', ' ', 'null', '1e400', '\u0000', '\u202e'),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.double(),
  fc.integer(),
);
const oddValue = fc.oneof(oddScalar, fc.jsonValue({ maxDepth: 2 }), fc.constant({ __proto__: null }));
/** A model name: usually plausible, sometimes empty, over-long, or full of control characters. */
const oddName = fc.oneof(
  fc.constantFrom(
    'llama3:8b',
    'qwen2.5:0.5b',
    '__proto__',
    'constructor',
    'toString',
    'a'.repeat(MAX_MODEL_NAME_LENGTH),
    'a'.repeat(MAX_MODEL_NAME_LENGTH + 1),
  ),
  fc.string({ unit: 'binary', maxLength: 300 }),
  oddScalar,
);
/** An entry of a model list: near-valid as often as junk, so the per-field reads are reached. */
const tagEntry = fc.oneof(
  oddValue,
  fc.record(
    {
      name: oddName,
      model: oddName,
      size: oddScalar,
      details: fc.oneof(oddValue, fc.record({ parameter_size: oddScalar }, { requiredKeys: [] })),
      capabilities: fc.oneof(oddValue, fc.array(oddScalar, { maxLength: 40 })),
      __proto__: oddValue,
    },
    { requiredKeys: [] },
  ),
);
const modelEntry = fc.oneof(oddValue, fc.record({ id: oddName, owned_by: oddScalar, object: oddScalar }, { requiredKeys: [] }));
/** A list answer `{ [key]: [...] }`, or something else entirely in its place. */
const listAnswer = (key: string, entry: fc.Arbitrary<unknown>) =>
  fc.oneof(
    oddValue,
    fc.array(entry, { maxLength: 30 }).map((list) => ({ [key]: list })),
    fc.tuple(fc.array(entry, { maxLength: 30 }), oddValue).map(([list, extra]) => ({ [key]: list, error: extra })),
    oddValue.map((v) => ({ [key]: v })),
  );
/** The body as the reader sees it: the JSON text parsed again, so keys like __proto__ are own keys. */
const wire = (value: unknown): unknown => parseJsonOrUndefined(Buffer.from(JSON.stringify(value) ?? 'null'));

function assertReadableModels(models: readonly ModelInfo[]): void {
  assert.ok(models.length <= MAX_ENGINE_MODELS);
  for (const m of models) {
    assert.equal(typeof m.name, 'string');
    assert.ok(m.name.length >= 1 && m.name.length <= MAX_MODEL_NAME_LENGTH, `name of length ${m.name.length}`);
    assert.ok(m.sizeBytes === null || (Number.isFinite(m.sizeBytes) && m.sizeBytes > 0), `size ${m.sizeBytes}`);
    assert.ok(m.parameterSize === null || (typeof m.parameterSize === 'string' && m.parameterSize.length <= 64));
    assert.ok(m.capabilities === null || (m.capabilities.length <= 32 && m.capabilities.every((c) => typeof c === 'string' && c.length <= 64)));
  }
}

/** A queue figure is a whole number the Hub can believe, or null (not reported): never negative, NaN or huge. */
function assertBelievable(figure: number | null, what: string): void {
  if (figure === null) return;
  assert.ok(Number.isSafeInteger(figure) && figure >= 0 && figure <= MAX_REPORTED_REQUESTS, `${what} ${figure}`);
}

describe('engine listings on generated hostile answers', () => {
  it('/api/tags: never throws, and keeps only named models with readable, bounded facts', () => {
    fc.assert(
      fc.property(listAnswer('models', tagEntry), (value) => {
        const models = parseTags(wire(value));
        if (models !== null) assertReadableModels(models);
      }),
      { numRuns: fuzzRuns(BOUNDED_RUNS) },
    );
  });

  it('/api/ps: never throws, and lists only readable model names', () => {
    fc.assert(
      fc.property(listAnswer('models', tagEntry), (value) => {
        const resident = residentModels(wire(value));
        if (resident === null) return;
        assert.ok(resident.length <= MAX_ENGINE_MODELS);
        for (const name of resident) assert.ok(typeof name === 'string' && name.length >= 1 && name.length <= MAX_MODEL_NAME_LENGTH);
      }),
      { numRuns: fuzzRuns(BOUNDED_RUNS) },
    );
  });

  it('/v1/models: never throws, and keeps only entries whose id is a readable name', () => {
    fc.assert(
      fc.property(listAnswer('data', modelEntry), (value) => {
        const list = parseModelList(wire(value));
        if (list === null) return;
        assertReadableModels(list.models);
        for (const owner of list.owners) assert.ok(typeof owner === 'string' && owner.length <= 64);
      }),
      { numRuns: fuzzRuns(BOUNDED_RUNS) },
    );
  });

  it('the entries relayed to apps are objects with a readable name, whatever the list held', () => {
    fc.assert(
      fc.property(listAnswer('models', tagEntry), listAnswer('data', modelEntry), (tags, data) => {
        for (const [body, list, key] of [
          [wire(tags), 'models', 'name'],
          [wire(data), 'data', 'id'],
        ] as const) {
          const entries = relayableEntries(body, list, key);
          assert.ok(entries.length <= MAX_ENGINE_MODELS);
          for (const e of entries) {
            assert.ok(typeof e === 'object' && e !== null && !Array.isArray(e));
            const name: unknown = e[key];
            assert.ok(typeof name === 'string' && name.length >= 1 && name.length <= MAX_MODEL_NAME_LENGTH);
          }
        }
      }),
      { numRuns: fuzzRuns(BOUNDED_RUNS) },
    );
  });

  it('llama.cpp /slots: never throws, and a slot count is 1 to the bound with no more busy slots than slots', () => {
    const slot = fc.oneof(oddValue, fc.record({ id: oddScalar, is_processing: oddScalar, state: oddScalar }, { requiredKeys: [] }));
    const body = fc.oneof(
      oddValue,
      fc.array(slot, { maxLength: 40 }),
      // Around the length bound, where a list stops being believed.
      fc
        .integer({ min: MAX_LLAMACPP_SLOTS - 2, max: MAX_LLAMACPP_SLOTS + 2 })
        .map((n) => Array.from({ length: n }, (_, i) => ({ id: i, is_processing: i % 3 === 0 }))),
    );
    fc.assert(
      fc.property(body, (value) => {
        const slots = parseLlamaSlots(wire(value));
        if (slots === null) return;
        assert.ok(Number.isSafeInteger(slots.slots) && slots.slots >= 1 && slots.slots <= MAX_LLAMACPP_SLOTS, `slots ${slots.slots}`);
        assertBelievable(slots.busy, 'busy');
        assert.ok(slots.busy === null || slots.busy <= slots.slots, `${slots.busy} busy of ${slots.slots}`);
      }),
      { numRuns: fuzzRuns(BOUNDED_RUNS) },
    );
  });

  it('vLLM /metrics: never throws on any text, and each figure is a believable count or null', () => {
    const gauge = fc.constantFrom(
      'vllm:num_requests_running',
      'vllm:num_requests_waiting',
      'vllm:num_requests_swapped',
      'vllm:num_requests_waiting_by_reason',
      'vllm:num_requests_',
    );
    const labels = fc.oneof(
      fc.constant(''),
      fc.constant('{model_name="m"}'),
      fc.constant('{model_name="a\\"}b",engine="0"}'),
      fc.constant('{model_name="never closed'),
      fc.string({ maxLength: 30 }).map((s) => `{${s}}`),
    );
    const value = fc.oneof(
      fc.constantFrom('0', '1', '3.0', '-1', 'NaN', '+Inf', '-Inf', 'Infinity', '1e308', '1e309', '0x10', '', '   ', '99999', '100001', '5e4'),
      fc.double().map(String),
      fc.integer().map(String),
      fc.string({ maxLength: 12 }),
    );
    const line = fc.oneof(
      fc
        .tuple(gauge, labels, fc.constantFrom(' ', '\t', '  ', ''), value, fc.constantFrom('', ' 1733000000000', ' x y'))
        .map(([g, l, sep, v, ts]) => `${g}${l}${sep}${v}${ts}`),
      fc.constantFrom('# HELP vllm:num_requests_running Number of requests', '# TYPE vllm:num_requests_running gauge', ''),
      fc.string({ unit: 'binary', maxLength: 80 }),
    );
    const text = fc
      .tuple(fc.array(line, { maxLength: 40 }), fc.constantFrom('\n', '\r\n'), fc.boolean())
      .map(([lines, eol, terminated]) => lines.join(eol) + (terminated ? eol : ''));
    fc.assert(
      fc.property(text, (t) => {
        const queue = parseVllmQueue(t);
        if (queue === null) return;
        assert.ok(queue.running !== null || queue.waiting !== null, 'a report says something, or is null');
        assertBelievable(queue.running, 'running');
        assertBelievable(queue.waiting, 'waiting');
      }),
      { numRuns: fuzzRuns(BOUNDED_RUNS) },
    );
  });

  it('vLLM /metrics: many series each under the bound cannot add up past it', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: MAX_REPORTED_REQUESTS }), { minLength: 1, maxLength: 50 }), (values) => {
        const text = values.map((v, i) => `vllm:num_requests_running{engine="${i}"} ${v}\n`).join('');
        const queue = parseVllmQueue(text);
        const sum = values.reduce((a, b) => a + b, 0);
        assert.equal(queue?.running ?? null, sum > MAX_REPORTED_REQUESTS ? null : sum);
      }),
      { numRuns: fuzzRuns(BOUNDED_RUNS) },
    );
  });
});
