/** A peer placement may use now, idle and holding the given engines' models, for tests: override what the case is about. */
import type { UsablePeer } from './candidates.js';

export function usablePeerFixture(name: string, backends: UsablePeer['backends'], extra: Partial<UsablePeer> = {}): UsablePeer {
  return {
    peerId: name,
    name,
    origin: 'http://127.0.0.1:1',
    backends,
    queueDepth: 0,
    hardwareTier: null,
    pressure: 1,
    unservableModels: [],
    modelDetails: new Map(),
    maxPromptTokens: null,
    maxNumCtx: null,
    ...extra,
  };
}
