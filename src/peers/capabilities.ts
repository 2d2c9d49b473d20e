/**
 * The capabilities document a Hub publishes to its paired peers on GET /capabilities, and how
 * a peer's document is read back. Anything a peer sends is untrusted: a field of the wrong type
 * reads as null (not reported), never as zero, and model names are bounded.
 */
import type { BackendView } from '../engines/types.js';

/** Most models read from one peer engine; more is not a plausible inventory. */
export const MAX_PEER_MODELS_PER_ENGINE = 2_000;
const MAX_MODEL_NAME_LENGTH = 256;

export interface PeerCapabilities {
  /** The peer's node UUID as it reports it (authenticated by the route); null when absent. */
  readonly nodeUuid: string | null;
  /** Reported hardware tier; null when not reported. */
  readonly hardwareTier: string | null;
  readonly backends: readonly { readonly kind: string; readonly models: readonly string[] }[];
  /** Requests the peer has in flight by its own count; null when not reported. */
  readonly inFlightRequests: number | null;
  /** False when the peer is not taking work from this Hub (inbound off, or this Hub disabled there). */
  readonly acceptingWork: boolean;
  /** GPU-pressure band 0-3; null when not measured (the key is absent on the wire, never 0). */
  readonly gpuPressure: number | null;
}

export interface PublishInputs {
  readonly nodeUuid: string;
  readonly backends: readonly BackendView[];
  readonly inFlightRequests: number;
  /** Inbound on and this peer enabled here. */
  readonly acceptingWork: boolean;
}

/** The document this Hub publishes. Not taking work: the real load, an empty inventory, acceptingWork false. */
export function publishCapabilities(input: PublishInputs): PeerCapabilities {
  return {
    nodeUuid: input.nodeUuid,
    // No hardware detection yet: absent is not zero, so the tier is not reported rather than guessed.
    hardwareTier: null,
    backends: input.acceptingWork ? input.backends.filter((b) => b.healthy).map((b) => ({ kind: b.kind, models: b.models.map((m) => m.name) })) : [],
    inFlightRequests: input.inFlightRequests,
    acceptingWork: input.acceptingWork,
    // This node measures no band: the key is left out, which peers read as "not measured".
    gpuPressure: null,
  };
}

export function readCapabilities(json: unknown): PeerCapabilities | null {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return null;
  const doc = json as Record<string, unknown>;
  const backends: { kind: string; models: string[] }[] = [];
  if (Array.isArray(doc.backends)) {
    for (const entry of doc.backends.slice(0, 16)) {
      const b = entry as { kind?: unknown; models?: unknown } | null;
      if (typeof b?.kind !== 'string' || !Array.isArray(b.models)) continue;
      const models = b.models.filter((m): m is string => typeof m === 'string' && m.length > 0 && m.length <= MAX_MODEL_NAME_LENGTH).slice(0, MAX_PEER_MODELS_PER_ENGINE);
      backends.push({ kind: b.kind.slice(0, 32), models });
    }
  }
  const inFlight = doc.inFlightRequests;
  return {
    nodeUuid: typeof doc.nodeUuid === 'string' ? doc.nodeUuid : null,
    hardwareTier: typeof doc.hardwareTier === 'string' ? doc.hardwareTier.slice(0, 32) : null,
    backends,
    inFlightRequests: typeof inFlight === 'number' && Number.isInteger(inFlight) && inFlight >= 0 && inFlight <= 1_000_000 ? inFlight : null,
    acceptingWork: doc.acceptingWork === true,
    gpuPressure: typeof doc.gpuPressure === 'number' && Number.isInteger(doc.gpuPressure) && doc.gpuPressure >= 0 && doc.gpuPressure <= 3 ? doc.gpuPressure : null,
  };
}
