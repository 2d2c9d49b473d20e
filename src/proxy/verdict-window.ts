/**
 * The window a candidate runs a request at, as far as this Hub can know it: what a prompt-too-long
 * verdict is confirmed against (spec, "A request no node can serve"). An Ollama candidate runs the
 * request's own options.num_ctx on the native routes, and otherwise its node's context cap, which
 * states the window that Ollama runs by default (OLLAMA_CONTEXT_LENGTH). Another engine's window is
 * known only when it is this node's own and states it: a local Lemonade lists the window it runs
 * the model at (context_length, its saved ctx_size until loaded), a local vLLM the one it was
 * launched with (max_model_len; engines/engine-answers.ts). A peer's cap says nothing about the
 * window its vLLM or Lemonade was launched with. A peer counts
 * as an Ollama candidate when every engine it lists that could serve the model in the dialect is
 * an Ollama, since the peer picks among those itself. Pure.
 */
import { kindBits, kindsHolding } from '../engines/model-holdings.js';
import { isSameModel } from '../engines/model-name.js';
import type { BackendView, ProxyDialect } from '../engines/types.js';
import { DIALECT_SPEAKERS, type UsablePeer } from '../placement/candidates.js';
import type { Candidate } from '../placement/types.js';

export interface VerdictWindowFacts {
  readonly model: string;
  readonly dialect: ProxyDialect;
  /** options.num_ctx of a native body; null when the request names no window (every /v1 call). */
  readonly numCtx: number | null;
  /** This node's context cap (inferenceMaxNumCtx); null when it states none. */
  readonly localCap: number | null;
  /** The peers placement read, for their advertised caps and the engines they list. */
  readonly peers: readonly UsablePeer[];
  /** This node's engines as placement read them, for the window a local Lemonade or vLLM states. */
  readonly local: readonly BackendView[];
}

const OLLAMA = kindBits((kind) => kind === 'ollama');

/** null: this Hub cannot know the window that candidate runs the request at. */
export type VerdictWindow = (c: Candidate) => number | null;

export function verdictWindow(facts: VerdictWindowFacts): VerdictWindow {
  return (c) => {
    if (c.peerId === null) {
      if (c.engine === 'ollama') return runsAt(facts, facts.localCap);
      return c.engine === 'lemonade' || c.engine === 'vllm' ? statedWindow(facts, c.backendId) : null;
    }
    const peer = facts.peers.find((p) => p.peerId === c.peerId);
    if (peer === undefined) return null;
    // The engine kinds the peer lists the model on that speak the dialect: known only when all are Ollama.
    const serving = kindsHolding(peer.backends, facts.model) & DIALECT_SPEAKERS[facts.dialect];
    return serving !== 0 && (serving & ~OLLAMA) === 0 ? runsAt(facts, peer.maxNumCtx) : null;
  };
}

/** An Ollama's window: the request's own on a native route, else its node's cap (null: none stated, so unknown). */
function runsAt(facts: VerdictWindowFacts, cap: number | null): number | null {
  return facts.dialect === 'ollama' && facts.numCtx !== null ? facts.numCtx : cap;
}

/** The window a local engine states for the model in its listing; null when it states none. */
function statedWindow(facts: VerdictWindowFacts, backendId: string | null): number | null {
  const view = facts.local.find((v) => v.backendId === backendId);
  const listed = view?.models.find((m) => isSameModel(view.kind, m.name, facts.model));
  return listed?.contextLength ?? null;
}
