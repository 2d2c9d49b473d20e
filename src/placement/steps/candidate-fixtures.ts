/** Candidates for the placement step tables: a local engine or a peer, with the figures a row varies. */
import type { EngineKind } from '../../engines/engine-kind.js';
import type { Candidate, Tiers } from '../types.js';

export function localEngine(backendId: string, queueDepth = 0, engine: EngineKind = 'ollama', extra: Partial<Candidate> = {}): Candidate {
  return {
    id: `local/${backendId}`,
    node: 'local',
    backendId,
    engine,
    url: `http://127.0.0.1:11434/${backendId}`,
    queueDepth,
    loadReported: true,
    peerId: null,
    hardwareTier: null,
    pressure: 1,
    ...extra,
  };
}

/** A peer by its whole node name, for the tables that spell names out; its peer id is the name. */
export function peerAt(node: string, queueDepth = 0, extra: Partial<Candidate> = {}): Candidate {
  return {
    id: `${node}/pool`,
    node,
    backendId: null,
    engine: null,
    url: `https://${node}`,
    queueDepth,
    loadReported: true,
    peerId: node,
    hardwareTier: null,
    pressure: 1,
    ...extra,
  };
}

/** A peer on the test tailnet by its short name, which is also its peer id. */
export function peerNode(name: string, queueDepth = 0, hardwareTier: string | null = null): Candidate {
  return peerAt(`${name}.tail0.ts.net`, queueDepth, { peerId: name, hardwareTier });
}

/** Tiers as candidate ids, for comparing orders. */
export const tierIds = (tiers: Tiers): string[][] => tiers.map((t) => t.map((c) => c.id));
