/**
 * What GET /api/tags states about a model that only peers hold: the parameter size and the
 * capabilities its holders published in their capabilities documents (modelDetails, already
 * bounded and checked when read: peers/capabilities.ts). Peers publish nothing else about a
 * model, so its size, digest and modified time stay empty or zero.
 *
 * Holders can disagree: two nodes may hold different builds under one name, and the ranker may
 * place the request on either. So the listing states only what every holder that described the
 * model says, and leaves the rest unknown rather than picking one holder's claim:
 * - parameter_size: the size when the holders that state one all state the same, else "";
 * - capabilities: those every holder that lists capabilities lists, in the order of the first
 *   such holder by name (so the answer does not depend on the order peers were read in); left
 *   out when none lists any or nothing is common, as Ollama leaves out an empty list.
 * A holder that describes nothing (a peer on a build before modelDetails) neither adds nor
 * removes a fact: it says nothing either way.
 */
import type { ModelDetail } from '../peers/capabilities.js';

export interface ListedFacts {
  /** "" when no holder states a size or the holders state different ones. */
  readonly parameterSize: string;
  /** null: the key is left out of the entry. */
  readonly capabilities: readonly string[] | null;
}

/** `holders` is each holding peer's name and what it published about the model (undefined: nothing). */
export function listedFacts(holders: readonly { readonly peer: string; readonly detail: ModelDetail | undefined }[]): ListedFacts {
  const described = [...holders].sort((a, b) => (a.peer < b.peer ? -1 : a.peer > b.peer ? 1 : 0)).map((h) => h.detail);
  const sizes = new Set(described.map((d) => d?.parameterSize).filter((s): s is string => typeof s === 'string' && s !== ''));
  const lists = described.map((d) => d?.capabilities).filter((c): c is readonly string[] => c !== null && c !== undefined);
  const [first, ...rest] = lists;
  const common = first === undefined ? [] : [...new Set(first)].filter((c) => rest.every((l) => l.includes(c)));
  return { parameterSize: sizes.size === 1 ? [...sizes][0]! : '', capabilities: common.length > 0 ? common : null };
}
