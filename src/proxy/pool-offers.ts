/**
 * The models the pool offers in one dialect: this node's healthy engines plus every usable
 * peer's cached inventory, with how many nodes hold each. What auto chooses from, and what the
 * listings name: a model a listing names is one the ranker can place. So a model an engine is
 * withholding as unservable is no offer of that engine, here or on a peer: auto resolved to one
 * has no candidate, and the request answers 502 while other chat models are servable.
 */
import { ADAPTERS } from '../engines/adapters.js';
import { ENGINE_KINDS, type EngineKind } from '../engines/engine-kind.js';
import type { BackendView, ProxyDialect } from '../engines/types.js';
import { namesModel, type LocalUnservable, type UsablePeer } from '../placement/candidates.js';
import type { ModelOffer } from './auto-alias.js';

function speaks(kind: string, dialect: ProxyDialect): boolean {
  return (ENGINE_KINDS as readonly string[]).includes(kind) && ADAPTERS[kind as EngineKind].speaks(dialect);
}

/** Model names each usable peer offers in the dialect (only peers holding at least one). */
export function peerModels(peers: readonly UsablePeer[], dialect: ProxyDialect): Map<string, Set<string>> {
  const byPeer = new Map<string, Set<string>>();
  for (const peer of peers) {
    const names = new Set<string>();
    // A model the peer says it cannot serve now is no offer: listing it would hand apps a 502. The
    // names are read as peerCandidates reads them (a peer on an older build may name `qwen3` for
    // the `qwen3:latest` its engine lists), or a listed model, or auto's pick, had no candidate.
    for (const b of peer.backends) if (speaks(b.kind, dialect)) for (const m of b.models) if (!namesModel(peer.unservableModels, m)) names.add(m);
    if (names.size > 0) byPeer.set(peer.name, names);
  }
  return byPeer;
}

export function offersOf(
  views: readonly BackendView[],
  peers: readonly UsablePeer[],
  dialect: ProxyDialect,
  /** The rule localCandidates drops an engine by; the same one here, so auto never picks what no local candidate serves. */
  unservable: LocalUnservable,
): ModelOffer[] {
  const byName = new Map<string, { offer: ModelOffer; nodes: Set<string> }>();
  const add = (name: string, node: string, facts: Pick<ModelOffer, 'parameterSize' | 'capabilities' | 'remote'>) => {
    const seen = byName.get(name);
    if (seen) {
      seen.nodes.add(node);
      seen.offer = {
        ...seen.offer,
        parameterSize: seen.offer.parameterSize ?? facts.parameterSize,
        capabilities: seen.offer.capabilities ?? facts.capabilities,
        local: seen.offer.local || node === 'local',
        remote: seen.offer.remote || facts.remote,
      };
    } else {
      byName.set(name, { offer: { name, ...facts, nodes: 1, local: node === 'local' }, nodes: new Set([node]) });
    }
  };
  for (const view of views) {
    if (!view.healthy || !ADAPTERS[view.kind].speaks(dialect)) continue;
    for (const m of view.models) {
      if (unservable(view, m.name)) continue;
      add(m.name, 'local', { parameterSize: m.parameterSize, capabilities: m.capabilities, remote: m.remote === true });
    }
  }
  // Peers publish what their engines say about each model, so every Hub ranks auto on the same
  // facts; a model a peer does not describe is unknown (null), not known to lack tools.
  for (const peer of peers) {
    for (const name of peerModels([peer], dialect).get(peer.name) ?? []) {
      const detail = peer.modelDetails.get(name);
      add(name, peer.name, { parameterSize: detail?.parameterSize ?? null, capabilities: detail?.capabilities ?? null, remote: detail?.remote === true });
    }
  }
  return [...byName.values()].map(({ offer, nodes }) => ({ ...offer, nodes: nodes.size }));
}
