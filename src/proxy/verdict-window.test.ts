/**
 * Issue 10 audit: the window a prompt-too-long verdict is confirmed against comes from the node's
 * context cap wherever the request names none (spec, "A request no node can serve"). Until this,
 * only a local Ollama on a native route with options.num_ctx had a window, so two capped nodes
 * agreeing never confirmed anything on /v1 and the walk asked every node further down.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { EngineKind } from '../engines/engine-kind.js';
import type { BackendView, ProxyDialect } from '../engines/types.js';
import type { UsablePeer } from '../placement/candidates.js';
import type { Candidate } from '../placement/types.js';
import { usablePeerFixture } from '../placement/usable-peer.fixture.js';
import { verdictWindow } from './verdict-window.js';
import { backendViewFixture } from '../engines/backend-view.fixture.js';

const MODEL = 'qwen3:8b';

const local = (engine: EngineKind): Candidate => ({
  id: `local/${engine}`,
  node: 'local',
  backendId: engine,
  engine,
  url: 'http://127.0.0.1:1',
  queueDepth: 0,
  loadReported: true,
  peerId: null,
  hardwareTier: null,
  pressure: 1,
});
const peerCandidate = (name: string): Candidate => ({
  id: `${name}/pool`,
  node: name,
  backendId: null,
  engine: null,
  url: 'http://127.0.0.1:2',
  queueDepth: 0,
  loadReported: true,
  peerId: name,
  hardwareTier: null,
  pressure: 1,
});
const peer = (name: string, maxNumCtx: number | null, backends: UsablePeer['backends']): UsablePeer =>
  usablePeerFixture(name, backends, { origin: 'http://127.0.0.1:2', maxNumCtx });
const OLLAMA_PEER = peer('hub-b', 8192, [{ kind: 'ollama', models: [MODEL] }]);
const MIXED_PEER = peer('hub-c', 8192, [
  { kind: 'ollama', models: [MODEL] },
  { kind: 'vllm', models: [MODEL] },
]);
const UNCAPPED_PEER = peer('hub-d', null, [{ kind: 'ollama', models: [MODEL] }]);
/** Ollama serves the model; its vLLM serves another one, so it does not count. */
const OTHER_MODEL_PEER = peer('hub-e', 8192, [
  { kind: 'ollama', models: [MODEL] },
  { kind: 'vllm', models: ['llama3:8b'] },
]);
/** Lists the model on no engine at all (a stale listing): no engine kind to judge by. */
const NO_ENGINE_PEER = peer('hub-f', 8192, [{ kind: 'ollama', models: ['llama3:8b'] }]);
/** Its vLLM lists the model among others, so the vLLM counts and the window is unknown. */
const MANY_MODELS_PEER = peer('hub-h', 8192, [
  { kind: 'ollama', models: [MODEL] },
  { kind: 'vllm', models: ['llama3:8b', MODEL] },
]);
/** An engine kind this Hub does not know (a newer peer's) is skipped, not read. */
const NEWER_PEER = peer('hub-g', 8192, [
  { kind: 'ollama', models: [MODEL] },
  { kind: 'future-engine', models: [MODEL] },
]);

interface Row {
  readonly name: string;
  readonly candidate: Candidate;
  readonly dialect: ProxyDialect;
  readonly numCtx: number | null;
  readonly localCap: number | null;
  readonly window: number | null;
}

const ROWS: readonly Row[] = [
  {
    name: "a local Ollama on a native route runs the request's own num_ctx",
    candidate: local('ollama'),
    dialect: 'ollama',
    numCtx: 32768,
    localCap: 8192,
    window: 32768,
  },
  {
    name: "a local Ollama on a native route with no num_ctx runs its node's cap",
    candidate: local('ollama'),
    dialect: 'ollama',
    numCtx: null,
    localCap: 8192,
    window: 8192,
  },
  { name: "a local Ollama on /v1 runs its node's cap", candidate: local('ollama'), dialect: 'openai', numCtx: null, localCap: 8192, window: 8192 },
  { name: 'a local Ollama on a node stating no cap: unknown', candidate: local('ollama'), dialect: 'openai', numCtx: null, localCap: null, window: null },
  { name: 'a local vLLM: unknown, whatever the cap says', candidate: local('vllm'), dialect: 'openai', numCtx: null, localCap: 8192, window: null },
  {
    name: 'a peer whose only engine for the model is Ollama, on /v1: its advertised cap',
    candidate: peerCandidate('hub-b'),
    dialect: 'openai',
    numCtx: null,
    localCap: null,
    window: 8192,
  },
  {
    name: "a peer whose only engine for the model is Ollama, native with num_ctx: the request's window",
    candidate: peerCandidate('hub-b'),
    dialect: 'ollama',
    numCtx: 16384,
    localCap: null,
    window: 16384,
  },
  {
    name: 'a peer that could serve the model on vLLM too: unknown (its cap says nothing about vLLM)',
    candidate: peerCandidate('hub-c'),
    dialect: 'openai',
    numCtx: null,
    localCap: 8192,
    window: null,
  },
  {
    name: 'the same peer on a native route, where only its Ollama speaks: its cap',
    candidate: peerCandidate('hub-c'),
    dialect: 'ollama',
    numCtx: null,
    localCap: null,
    window: 8192,
  },
  { name: 'a peer advertising no cap: unknown', candidate: peerCandidate('hub-d'), dialect: 'openai', numCtx: null, localCap: 8192, window: null },
  { name: 'a peer placement did not read: unknown', candidate: peerCandidate('hub-z'), dialect: 'openai', numCtx: null, localCap: 8192, window: null },
  {
    name: "a peer whose other engine serves another model: that engine does not count, the peer's cap applies",
    candidate: peerCandidate('hub-e'),
    dialect: 'openai',
    numCtx: null,
    localCap: null,
    window: 8192,
  },
  {
    name: 'a peer whose vLLM lists the model among others: unknown',
    candidate: peerCandidate('hub-h'),
    dialect: 'openai',
    numCtx: null,
    localCap: null,
    window: null,
  },
  {
    name: 'a num_ctx counts only on a native route: on /v1 the local cap applies',
    candidate: local('ollama'),
    dialect: 'openai',
    numCtx: 32768,
    localCap: 8192,
    window: 8192,
  },
  { name: 'a peer listing the model on no engine: unknown', candidate: peerCandidate('hub-f'), dialect: 'openai', numCtx: null, localCap: null, window: null },
  {
    name: "a peer's engine kind this Hub does not know is skipped: its Ollama's cap applies",
    candidate: peerCandidate('hub-g'),
    dialect: 'openai',
    numCtx: null,
    localCap: null,
    window: 8192,
  },
];

describe('verdictWindow', () => {
  for (const row of ROWS) {
    it(row.name, () => {
      const windowOf = verdictWindow({
        model: MODEL,
        dialect: row.dialect,
        numCtx: row.numCtx,
        localCap: row.localCap,
        peers: [OLLAMA_PEER, MIXED_PEER, UNCAPPED_PEER, OTHER_MODEL_PEER, NO_ENGINE_PEER, NEWER_PEER, MANY_MODELS_PEER],
        local: [],
      });
      assert.equal(windowOf(row.candidate), row.window);
    });
  }

  describe("a local engine's own stated window", () => {
    const view = (kind: EngineKind, models: BackendView['models']): BackendView => backendViewFixture([], { backendId: kind, kind, models });
    const listed = (name: string, contextLength: number | null) => ({ name, parameterSize: null, capabilities: null, sizeBytes: null, contextLength });
    const windowOf = (local: readonly BackendView[]) => verdictWindow({ model: MODEL, dialect: 'openai', numCtx: null, localCap: 4096, peers: [], local });

    it('is the window a local Lemonade states for the model (its saved ctx_size), whatever the cap says', () => {
      assert.equal(windowOf([view('lemonade', [listed('other:1b', 2048), listed(MODEL, 16384)])])(local('lemonade')), 16384);
    });
    it('is unknown when the Lemonade states none for the model', () => {
      assert.equal(windowOf([view('lemonade', [listed(MODEL, null)])])(local('lemonade')), null);
      assert.equal(windowOf([view('lemonade', [listed('other:1b', 2048)])])(local('lemonade')), null);
      assert.equal(windowOf([])(local('lemonade')), null);
    });
    it('is the window a local vLLM states for the model (its max_model_len)', () => {
      assert.equal(windowOf([view('vllm', [listed(MODEL, 16384)])])(local('vllm')), 16384);
    });
    it('is not read for an engine that states none in its listing (llama.cpp, oMLX)', () => {
      assert.equal(windowOf([view('llamacpp', [listed(MODEL, 16384)])])(local('llamacpp')), null);
    });
    it("is never read for a peer's Lemonade: a peer's cap says nothing about it", () => {
      const w = verdictWindow({
        model: MODEL,
        dialect: 'openai',
        numCtx: null,
        localCap: null,
        peers: [peer('hub-l', 8192, [{ kind: 'lemonade', models: [MODEL] }])],
        local: [view('lemonade', [listed(MODEL, 16384)])],
      });
      assert.equal(w(peerCandidate('hub-l')), null);
    });
  });
});
