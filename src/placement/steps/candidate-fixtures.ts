/** Candidates for the placement step tables: a local engine or a peer, with the figures a row varies. */
import type { EngineKind } from '../../engines/engine-kind.js';
import type { Candidate, Tiers } from '../types.js';

export function localEngine(backendId: string, queueDepth = 0, engine: EngineKind = 'ollama'): Candidate {
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
  };
}

export function peerNode(name: string, queueDepth = 0, hardwareTier: string | null = null): Candidate {
  const node = `${name}.tail0.ts.net`;
  return {
    id: `${node}/pool`,
    node,
    backendId: null,
    engine: null,
    url: `https://${node}`,
    queueDepth,
    loadReported: true,
    peerId: name,
    hardwareTier,
    pressure: 1,
  };
}

/** Tiers as candidate ids, for comparing orders. */
export const tierIds = (tiers: Tiers): string[][] => tiers.map((t) => t.map((c) => c.id));
