/**
 * The auto alias (spec, "The auto alias"): an app may ask for model "auto" and gets the
 * best chat model the pool holds. Order: the model chosen in the Hub's settings wherever it
 * is served; otherwise tool-capable first (known, then unknown, then known tool-less), then
 * 7 B parameters or more, then parameter count, how many nodes serve it, and whether this Hub
 * does. Embedding and rerank models are never picked, nor an Ollama Cloud (:cloud) tag,
 * which would send the prompt off the machine.
 *
 * The spec ranks by a model catalog's intelligence index between the 7 B test and the parameter
 * count. cihub ships no model catalog and engines state no such figure, so every model's index is
 * unknown and they all tie there: the order goes on to the parameter count, as if the key were absent.
 */

export const AUTO_MODEL = 'auto';
/** Models at or above this size rank ahead of smaller ones. */
export const AUTO_MIN_PREFERRED_PARAMS = 7e9;
/**
 * Largest parameter count believed: 2 T. The largest open-weight models published are about
 * 1 T (2025). Sizes are facts a peer states about itself, and the ranking prefers the larger
 * model, so a peer that claimed "999999T" used to take every Hub's auto traffic (issue 9,
 * defect 15); a claim past this bound reads as no size stated, which ranks behind every
 * model known to be 7 B or more.
 */
export const MAX_BELIEVED_PARAMS = 2e12;

/** One model as the pool offers it. */
export interface ModelOffer {
  readonly name: string;
  /** e.g. "8.2B"; null when no engine said. */
  readonly parameterSize: string | null;
  /** null when no engine said. */
  readonly capabilities: readonly string[] | null;
  /** How many nodes serve it. */
  readonly nodes: number;
  /** Whether this Hub serves it. */
  readonly local: boolean;
  /** True when an engine listing it (or a peer, for its own) says it runs in a cloud; false when none says so. */
  readonly remote: boolean;
}

/** Parameter count from "8.2B" / "567M"; null when absent, unreadable, or beyond MAX_BELIEVED_PARAMS. */
export function parseParameterCount(size: string | null): number | null {
  const m = size === null ? null : /^\s*(\d{1,7}(?:\.\d{1,6})?)\s*([KMBT])\s*$/i.exec(size);
  if (!m) return null;
  const scale = { K: 1e3, M: 1e6, B: 1e9, T: 1e12 }[m[2]!.toUpperCase() as 'K' | 'M' | 'B' | 'T'];
  const n = Number(m[1]) * scale;
  return Number.isFinite(n) && n > 0 && n <= MAX_BELIEVED_PARAMS ? n : null;
}

const NOT_CHAT_NAME = /embed|rerank|bge-|minilm/i;

export function isChatCandidate(offer: ModelOffer): boolean {
  // A model listed as "auto" could never be asked for by name, and picking it would hand the alias on unresolved.
  if (offer.name === AUTO_MODEL) return false;
  if (offer.capabilities !== null && (offer.capabilities.includes('embedding') || offer.capabilities.includes('rerank'))) return false;
  if (offer.capabilities === null && NOT_CHAT_NAME.test(offer.name)) return false;
  // Never a cloud model: auto would send the prompt off the appliance. Ollama marks one with
  // remote_host whatever its name, and a :cloud tag names one on an engine that does not mark it.
  if (offer.remote) return false;
  const tag = offer.name.includes(':') ? offer.name.slice(offer.name.lastIndexOf(':') + 1) : '';
  return !/cloud/i.test(tag);
}

function toolRank(offer: ModelOffer): number {
  if (offer.capabilities === null) return 1;
  return offer.capabilities.includes('tools') ? 0 : 2;
}

/** The model auto stands for, or null when the pool holds no chat model. */
export function resolveAuto(offers: readonly ModelOffer[], preferred: string | null = null): string | null {
  if (preferred !== null && offers.some((o) => o.name === preferred)) return preferred;
  const counts = new Map(offers.map((o) => [o, parseParameterCount(o.parameterSize)]));
  const ranked = offers.filter(isChatCandidate).sort((a, b) => {
    const params = (o: ModelOffer) => counts.get(o) ?? null;
    const big = (o: ModelOffer) => ((params(o) ?? 0) >= AUTO_MIN_PREFERRED_PARAMS ? 0 : 1);
    return (
      toolRank(a) - toolRank(b) ||
      big(a) - big(b) ||
      (params(b) ?? -1) - (params(a) ?? -1) ||
      b.nodes - a.nodes ||
      Number(b.local) - Number(a.local) ||
      a.name.localeCompare(b.name)
    );
  });
  return ranked[0]?.name ?? null;
}
