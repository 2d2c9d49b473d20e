import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { BackendView } from '../engines/types.js';
import { localCandidates, NOTHING_UNSERVABLE, peerCandidates, type UsablePeer } from '../placement/candidates.js';
import { resolveAuto } from './auto-alias.js';
import { offersOf, peerModels } from './pool-offers.js';
import { backendViewFixture } from '../engines/backend-view.fixture.js';
import { ManualClock } from '../util/clock.js';
import { publishCapabilities, readModelDetails } from '../peers/capabilities.js';
import { engineModelKey, localUnservable, WithholdBook } from './withhold-book.js';

const local = (models: [string, string | null, string[] | null][]): BackendView =>
  backendViewFixture([], { models: models.map(([name, parameterSize, capabilities]) => ({ name, parameterSize, capabilities, sizeBytes: null })) });
const peer = (name: string, models: [string, string | null, string[] | null][]): UsablePeer => ({
  peerId: name,
  name,
  origin: `http://127.0.0.1/${name}`,
  backends: [{ kind: 'ollama', models: models.map(([m]) => m) }],
  queueDepth: 0,
  hardwareTier: null,
  pressure: 1,
  unservableModels: [],
  modelDetails: new Map(models.map(([m, parameterSize, capabilities]) => [m, { parameterSize, capabilities }])),
  maxPromptTokens: null,
  maxNumCtx: null,
});

describe('offersOf across the pool', () => {
  it("gives every Hub the same facts, so auto resolves to the same model on each (not each Hub's own)", () => {
    const a: [string, string, string[]] = ['a:8b', '8B', ['completion', 'tools']];
    const big: [string, string, string[]] = ['big:70b', '70B', ['completion', 'tools']];
    const onA = resolveAuto(offersOf([local([a])], [peer('b.ts.net', [big])], 'ollama', NOTHING_UNSERVABLE));
    const onB = resolveAuto(offersOf([local([big])], [peer('a.ts.net', [a])], 'ollama', NOTHING_UNSERVABLE));
    assert.equal(onA, 'big:70b');
    assert.equal(onB, 'big:70b');
  });

  it('counts the nodes that hold a model and reads a peer model it does not describe as unknown', () => {
    const offers = offersOf(
      [local([['m', '8B', null]])],
      [peer('b.ts.net', [['m', null, null]]), peer('c.ts.net', [['n', null, null]])],
      'ollama',
      NOTHING_UNSERVABLE,
    );
    assert.deepEqual(
      offers.map((o) => [o.name, o.nodes, o.local, o.parameterSize]),
      [
        ['m', 2, true, '8B'],
        ['n', 1, false, null],
      ],
    );
  });
});

describe('a cloud model, which auto must never pick (spec, the auto alias)', () => {
  const cloud = { name: 'my-assistant:latest', parameterSize: '116.8B', capabilities: ['completion', 'tools'], sizeBytes: null, remote: true };
  const small: [string, string, string[]] = ['qwen3:8b', '8B', ['completion', 'tools']];

  it('is never auto on this Hub when its own Ollama marks it remote, however large', () => {
    const engine = backendViewFixture([], { models: [cloud, { name: small[0], parameterSize: small[1], capabilities: small[2], sizeBytes: null }] });
    assert.equal(resolveAuto(offersOf([engine], [], 'ollama', NOTHING_UNSERVABLE)), 'qwen3:8b');
  });

  it("is never auto on another Hub either: the peer's published details carry the mark across", () => {
    const published = publishCapabilities({
      nodeUuid: 'u-1',
      backends: [backendViewFixture([], { models: [cloud] })],
      inFlightRequests: 0,
      acceptingWork: true,
      maxPromptTokens: null,
    });
    const details = readModelDetails(JSON.parse(JSON.stringify(published.modelDetails)))!;
    assert.equal(details.get(cloud.name)?.remote, true);
    const fromPeer: UsablePeer = { ...peer('b.ts.net', []), backends: [{ kind: 'ollama', models: [cloud.name] }], modelDetails: details };
    assert.equal(resolveAuto(offersOf([local([small])], [fromPeer], 'ollama', NOTHING_UNSERVABLE)), 'qwen3:8b');
  });
});

describe("a peer's unservableModels (issue 10 audit)", () => {
  it("are no offer: the listings, the status models and auto leave them out, and keep the peer's other models", () => {
    const b = {
      ...peer('b.ts.net', [
        ['ok:8b', '8B', ['completion']],
        ['broken:70b', '70B', ['completion']],
      ]),
      unservableModels: ['broken:70b'],
    };
    assert.deepEqual([...(peerModels([b], 'ollama').get('b.ts.net') ?? [])], ['ok:8b']);
    assert.deepEqual(
      offersOf([], [b], 'ollama', NOTHING_UNSERVABLE).map((o) => o.name),
      ['ok:8b'],
    );
    assert.equal(resolveAuto(offersOf([], [b], 'ollama', NOTHING_UNSERVABLE)), 'ok:8b', 'auto never picks a model its only holder cannot serve');
  });

  it('are read as placement reads them: a tagless name from a peer on an older build takes the :latest its engine lists off the offers', () => {
    const b = {
      ...peer('b.ts.net', [
        ['qwen3:latest', '8B', ['completion', 'tools']],
        ['small:1b', '1B', ['completion']],
      ]),
      unservableModels: ['qwen3'],
    };
    assert.deepEqual(peerCandidates([b], 'qwen3:latest', 'ollama'), [], 'placement has no candidate for it');
    assert.deepEqual([...(peerModels([b], 'openai').get('b.ts.net') ?? [])], ['small:1b'], 'so the listings do not name it');
    assert.equal(resolveAuto(offersOf([], [b], 'ollama', NOTHING_UNSERVABLE)), 'small:1b', 'and auto does not pick it');
  });

  it('still offer a model another node serves', () => {
    const b = { ...peer('b.ts.net', [['m:8b', null, null]]), unservableModels: ['m:8b'] };
    const offers = offersOf([local([['m:8b', '8B', null]])], [b], 'ollama', NOTHING_UNSERVABLE);
    assert.deepEqual(
      offers.map((o) => [o.name, o.nodes, o.local]),
      [['m:8b', 1, true]],
    );
  });
});

describe('a model a local engine withholds as unservable', () => {
  // The core-4 load failure on this node's own engine: two 500s in five minutes withhold it there.
  const withholding = (model: string): WithholdBook => {
    const book = new WithholdBook(new ManualClock());
    for (let i = 0; i < 2; i++) book.strike(engineModelKey('local', 'ollama', model), 'model failed to load');
    return book;
  };
  const here = local([
    ['big:70b', '70B', ['completion', 'tools']],
    ['gemma3:1b', '1B', ['completion']],
  ]);

  it('is no offer of that engine, so auto picks a model a local candidate serves', () => {
    const unservable = localUnservable(withholding('big:70b'));
    const offers = offersOf([here], [peer('b.ts.net', [['qwen3:8b', '8B', ['completion', 'tools']]])], 'openai', unservable);
    assert.deepEqual(
      offers.map((o) => o.name),
      ['gemma3:1b', 'qwen3:8b'],
    );
    const auto = resolveAuto(offers);
    assert.equal(auto, 'qwen3:8b');
    assert.equal(localCandidates([here], 'big:70b', 'openai', () => 0, unservable).length, 0, 'the same rule leaves the engine out of the candidates');
  });

  it('is still offered by a peer that serves it', () => {
    const offers = offersOf([here], [peer('b.ts.net', [['big:70b', '70B', ['completion', 'tools']]])], 'ollama', localUnservable(withholding('big:70b')));
    assert.deepEqual(
      offers.map((o) => [o.name, o.nodes, o.local]),
      [
        ['gemma3:1b', 1, true],
        ['big:70b', 1, false],
      ],
    );
  });
});
