import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ENGINE_KINDS, type EngineKind } from './engine-kind.js';
import { kindBits, kindsHolding, type ListedModels } from './model-holdings.js';
import { isSameModel } from './model-name.js';

/** The kinds as isSameModel names them walking every list: what kindsHolding must answer. */
function walked(listed: ListedModels, model: string): EngineKind[] {
  const kinds = new Set<EngineKind>();
  for (const { kind, models } of listed) {
    if (!(ENGINE_KINDS as readonly string[]).includes(kind)) continue;
    if (models.some((m) => isSameModel(kind as EngineKind, m, model))) kinds.add(kind as EngineKind);
  }
  return ENGINE_KINDS.filter((k) => kinds.has(k));
}

const kindsOf = (bits: number): EngineKind[] => ENGINE_KINDS.filter((k) => (bits & kindBits((c) => c === k)) !== 0);

describe('kindsHolding', () => {
  const rows: readonly { name: string; listed: ListedModels; model: string; kinds: readonly EngineKind[] }[] = [
    { name: 'finds a name any engine lists verbatim', listed: [{ kind: 'vllm', models: ['a', 'm'] }], model: 'm', kinds: ['vllm'] },
    {
      name: 'names every kind that lists it',
      listed: [
        { kind: 'ollama', models: ['m'] },
        { kind: 'llamacpp', models: ['m'] },
      ],
      model: 'm',
      kinds: ['ollama', 'llamacpp'],
    },
    { name: "takes an untagged name to mean Ollama's :latest", listed: [{ kind: 'ollama', models: ['m:latest'] }], model: 'm', kinds: ['ollama'] },
    { name: 'keeps :latest to Ollama', listed: [{ kind: 'vllm', models: ['m:latest'] }], model: 'm', kinds: [] },
    { name: 'does not read a tagged name as :latest', listed: [{ kind: 'ollama', models: ['m:8b:latest'] }], model: 'm:8b', kinds: [] },
    { name: 'does not strip :latest the other way', listed: [{ kind: 'ollama', models: ['m'] }], model: 'm:latest', kinds: [] },
    {
      name: 'reads a registry port as no tag',
      listed: [{ kind: 'ollama', models: ['registry.lan:5000/team/embed:latest'] }],
      model: 'registry.lan:5000/team/embed',
      kinds: ['ollama'],
    },
    { name: 'knows no engine kind this Hub does not', listed: [{ kind: 'mystery', models: ['m'] }], model: 'm', kinds: [] },
    { name: 'answers none for a model nobody lists', listed: [{ kind: 'ollama', models: ['a:latest', 'b'] }], model: 'c', kinds: [] },
  ];
  for (const r of rows) it(r.name, () => assert.deepEqual(kindsOf(kindsHolding(r.listed, r.model)), r.kinds));

  it('answers as walking every list with isSameModel does, over 500 seeded random nodes', () => {
    let seed = 13;
    const next = (n: number) => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n;
    const pick = <T>(xs: readonly T[]): T => xs[next(xs.length)]!;
    const names = ['m', 'm:latest', 'm:8b', 'm:8b:latest', 'ns/m', 'ns/m:latest', 'h:5000/m', 'h:5000/m:latest', ':latest', 'm:latestx', 'latest'];
    const kinds = [...ENGINE_KINDS, 'mystery'];
    for (let node = 0; node < 500; node++) {
      const listed = Array.from({ length: 1 + next(3) }, () => ({ kind: pick(kinds), models: Array.from({ length: next(5) }, () => pick(names)) }));
      for (const model of names) assert.deepEqual(kindsOf(kindsHolding(listed, model)), walked(listed, model), JSON.stringify({ listed, model }));
    }
  });

  it("reads each node's lists anew: a new snapshot's answer is its own", () => {
    assert.deepEqual(kindsOf(kindsHolding([{ kind: 'ollama', models: ['m'] }], 'm')), ['ollama']);
    assert.deepEqual(kindsOf(kindsHolding([{ kind: 'ollama', models: ['n'] }], 'm')), []);
  });
});

describe('kindBits', () => {
  it('sets one bit for each kind the test accepts, none for the rest', () => {
    const slots = kindBits((k) => k === 'ollama' || k === 'llamacpp');
    assert.deepEqual(kindsOf(slots), ['ollama', 'llamacpp']);
    assert.equal(
      kindBits(() => false),
      0,
    );
  });
});
