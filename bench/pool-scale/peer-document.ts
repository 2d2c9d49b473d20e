/**
 * The capabilities document one fake peer publishes: built with the Hub's own publishCapabilities,
 * so it is exactly what a real Hub with one Ollama holding the bench's chat and embedding models
 * would send, with slots, a context cap, a hardware tier, GPU pressure and four throughput bands
 * for the chat model (the fields placement reads per candidate).
 */
import { publishCapabilities, type CapabilitiesDocument } from '../../src/peers/capabilities.js';
import { advertOf } from '../../src/peers/throughput-advert.js';

export const CHAT_MODEL = 'bench-chat:8b';
export const EMBED_MODEL = 'bench-embed:1b';

export function peerDocument(nodeUuid: string, index: number, inFlight = 0): CapabilitiesDocument {
  const model = (name: string) => ({ name, parameterSize: '8B', capabilities: ['completion'], sizeBytes: null });
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
    backends: [
      {
        backendId: 'ollama',
        kind: 'ollama',
        url: 'http://127.0.0.1:11434',
        running: true,
        healthy: true,
        error: null,
        probedMsAgo: 0,
        models: [model(CHAT_MODEL), model(EMBED_MODEL)],
      },
    ],
    inFlightRequests: inFlight,
    acceptingWork: true,
    maxPromptTokens: null,
    hardwareTier: index % 5 === 4 ? 'mid-range' : 'high-end',
    maxNumCtx: 65536,
    ollamaSlots: 4,
    gpuPressure: index % 3,
    throughput: advertOf([{ node: 'local', backendId: 'ollama', model: CHAT_MODEL, bands, decodeTokensPerSec: 31.5 }]),
  });
}
