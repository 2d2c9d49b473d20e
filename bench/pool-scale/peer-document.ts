/**
 * The capabilities document one fake peer publishes: built with the Hub's own publishCapabilities,
 * so it is exactly what a real Hub with one Ollama holding the bench's chat and embedding models
 * would send, with slots, a context cap, a hardware tier, GPU pressure and four throughput bands
 * for the chat model (the fields placement reads per candidate).
 *
 * By default the peer lists two models, the asked one first. A real Ollama node often lists tens,
 * and what placement and status cost can grow with them (placement walked every list until
 * engines/model-holdings.ts), so `models` above 2 adds others ahead of the two: the asked one is
 * then listed last but one.
 */
import { publishCapabilities, type CapabilitiesDocument } from '../../src/peers/capabilities.js';
import { advertOf } from '../../src/peers/throughput-advert.js';
import { backendViewFixture } from '../../src/engines/backend-view.fixture.js';

export const CHAT_MODEL = 'bench-chat:8b';
export const EMBED_MODEL = 'bench-embed:1b';

/** Models each fake peer lists unless told otherwise: the chat and the embedding model. */
export const PEER_MODELS_DEFAULT = 2;

export function peerDocument(nodeUuid: string, index: number, inFlight = 0, models = PEER_MODELS_DEFAULT): CapabilitiesDocument {
  if (!Number.isInteger(models) || models < PEER_MODELS_DEFAULT) throw new Error(`a fake peer lists at least ${PEER_MODELS_DEFAULT} models, got ${models}`);
  const model = (name: string) => ({ name, parameterSize: '8B', capabilities: ['completion'], sizeBytes: null });
  const others = Array.from({ length: models - PEER_MODELS_DEFAULT }, (_, k) => model(`bench-other-${k}:7b`));
  // Rates differ per peer so the ranker and the throughput step have something to sort.
  const rate = 150 + ((index * 37) % 300);
  const bands = [4096, 8192, 16384, 32768].map((fromTokens) => ({
    fromTokens,
    promptTokens: fromTokens + 1234,
    tokensPerSec: rate,
    deadline: false,
    ageMs: 60_000,
  }));
  return publishCapabilities({
    nodeUuid,
    backends: [backendViewFixture([], { models: [...others, model(CHAT_MODEL), model(EMBED_MODEL)] })],
    inFlightRequests: inFlight,
    acceptingWork: true,
    maxPromptTokens: null,
    hardwareTier: index % 5 === 4 ? 'mid-range' : 'high-end',
    maxNumCtx: 65536,
    ollamaSlots: 4,
    gpuPressure: index % 3,
    throughput: advertOf([{ node: 'local', backendId: 'ollama', model: CHAT_MODEL, bands, decodeTokensPerSec: 31.5, decodeAgeMs: 0 }]),
  });
}
