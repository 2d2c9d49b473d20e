import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_MODEL_NAME_LENGTH } from './model-name.js';
import { MAX_ENGINE_MODELS, MAX_RELAYED_ENTRY_DEPTH, parseModelList, parseTags, relayableEntries, residentModels } from './engine-answers.js';

/** Every kind of entry a hostile or broken engine has been seen to send, or could. */
const JUNK = [
  null,
  0,
  7,
  'text',
  true,
  [],
  {},
  { name: null },
  { name: 42 },
  { id: null },
  { name: '' },
  { name: 'x'.repeat(MAX_MODEL_NAME_LENGTH + 1) },
  // Terminal escapes and an invisible direction mark: the pool's listings would hand them to `ollama list`.
  { name: 'evil\u001b]0;owned\u0007', model: 'evil\u001b]0;owned\u0007', id: 'evil\u001b[2J' },
  { name: 'rtl\u202eb:8', id: 'rtl\u202eb:8' },
];

describe('engine answers are read entry by entry', () => {
  it('drops unreadable /api/tags entries and keeps the rest', () => {
    assert.deepEqual(parseTags({ models: [...JUNK, { name: 'a:1b', capabilities: [null, 'tools', 3], details: null, size: -1 }] }), [
      { name: 'a:1b', parameterSize: null, capabilities: ['tools'], sizeBytes: null },
    ]);
  });

  it('marks a model Ollama lists with remote_host or remote_model as remote, whatever its name (protocols.md, 2.7)', () => {
    const models = parseTags({
      models: [
        { name: 'my-assistant:latest', remote_model: 'gpt-oss:120b', remote_host: 'https://ollama.com:443' },
        { name: 'hosted:latest', remote_host: 'https://ollama.com:443' },
        { name: 'qwen3:8b' },
      ],
    })!;
    assert.deepEqual(
      models.map((m) => [m.name, m.remote ?? null]),
      [
        ['my-assistant:latest', true],
        ['hosted:latest', true],
        ['qwen3:8b', null],
      ],
    );
  });

  it('reads a size only when it is a finite positive number', () => {
    for (const size of [Infinity, NaN, '5', -5, 0]) assert.equal(parseTags({ models: [{ name: 'm', size }] })![0]!.sizeBytes, null);
  });

  it('drops unreadable /v1/models entries and keeps the rest', () => {
    assert.deepEqual(parseModelList({ data: [...JUNK, { id: 'b', owned_by: null }, { id: 'c', owned_by: 'vllm' }] }), {
      models: [
        { name: 'b', parameterSize: null, capabilities: null, sizeBytes: null, contextLength: null },
        { name: 'c', parameterSize: null, capabilities: null, sizeBytes: null, contextLength: null },
      ],
      owners: ['vllm'],
    });
  });

  it('drops unreadable /api/ps entries and keeps the rest', () => {
    assert.deepEqual(residentModels({ models: [...JUNK, { model: 'd:1b' }] }), ['d:1b']);
  });

  it('reads a body that is not the shape at all as no answer, never a throw', () => {
    for (const body of [null, undefined, 1, 'x', [], { models: null }, { models: {} }, { data: 'x' }]) {
      assert.equal(parseTags(body), null);
      assert.equal(parseModelList(body), null);
      assert.equal(residentModels(body), null);
      assert.deepEqual(relayableEntries(body, 'models', 'name'), []);
    }
  });

  it('relays only entries with a readable name, as the engine sent them', () => {
    assert.deepEqual(relayableEntries({ models: [...JUNK, { name: 'e', extra: { kept: true } }] }, 'models', 'name'), [{ name: 'e', extra: { kept: true } }]);
  });

  it('relays an entry without the fields nested past MAX_RELAYED_ENTRY_DEPTH, so the merged listing can be written out', () => {
    const nested = (levels: number): unknown => (levels === 0 ? 'leaf' : [nested(levels - 1)]);
    const deep = JSON.parse(`{"models":[{"name":"deep:1b","size":5,"x":${'['.repeat(200_000)}${']'.repeat(200_000)}}]}`) as unknown;
    const relayed = relayableEntries(deep, 'models', 'name');
    assert.deepEqual(relayed, [{ name: 'deep:1b', size: 5 }]);
    assert.doesNotThrow(() => JSON.stringify(relayed));
    const atTheBound = { name: 'kept', details: nested(MAX_RELAYED_ENTRY_DEPTH - 1) };
    assert.deepEqual(relayableEntries({ models: [atTheBound] }, 'models', 'name'), [atTheBound]);
    const pastIt = { name: 'cut', details: nested(MAX_RELAYED_ENTRY_DEPTH) };
    assert.deepEqual(relayableEntries({ data: [pastIt] }, 'data', 'name'), [{ name: 'cut' }]);
  });

  it('reads at most MAX_ENGINE_MODELS models from one listing', () => {
    const models = Array.from({ length: MAX_ENGINE_MODELS + 5 }, (_, i) => ({ name: `m${i}` }));
    assert.equal(parseTags({ models })!.length, MAX_ENGINE_MODELS);
  });
});
