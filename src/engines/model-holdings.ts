/**
 * Which engine kinds on one node list a model, answered with one lookup instead of a walk over
 * every name the node lists. The answer is isSameModel's (model-name.ts), precomputed: each listed
 * name is filed under the kind that lists it, and an Ollama name ending in ':latest' is filed under
 * its untagged form too, since a request naming that form means it.
 *
 * Why: placement asked each peer's engines whether they hold the model by walking their lists,
 * once for candidates and again for stated slots. At 50 peers listing 50 models each (a node with
 * many Ollama models pulled) the walks took a long prompt's placement from 44 to 59 µs
 * (bench/micro/placement.ts --models, 2026-12-05).
 *
 * A node's lists are built anew from each snapshot and never changed afterwards, so the index is
 * kept per list (weakly: it goes when the snapshot does) and built on the first request that reads it.
 */
import { ENGINE_KINDS, type EngineKind } from './engine-kind.js';
import { hasOllamaTag, LATEST_TAG } from './model-name.js';

/** A set of engine kinds, one bit per kind in ENGINE_KINDS order; 0 is none. */
export type KindBits = number;

/** What a node lists: its engines, each with its kind (as the node named it) and model names. */
export type ListedModels = readonly { readonly kind: string; readonly models: readonly string[] }[];

const BIT_OF: ReadonlyMap<string, KindBits> = new Map(ENGINE_KINDS.map((kind, i) => [kind, 1 << i]));

/** The kinds `holds` accepts, as bits: build once (a module constant, or once a request) and test with `&`. */
export function kindBits(holds: (kind: EngineKind) => boolean): KindBits {
  let bits = 0;
  for (const kind of ENGINE_KINDS) if (holds(kind)) bits |= BIT_OF.get(kind)!;
  return bits;
}

const indexes = new WeakMap<ListedModels, ReadonlyMap<string, KindBits>>();

/** The kinds among `listed` whose engines list `model` (as isSameModel matches names), as bits; 0 when none. */
export function kindsHolding(listed: ListedModels, model: string): KindBits {
  let index = indexes.get(listed);
  if (index === undefined) indexes.set(listed, (index = indexOf(listed)));
  return index.get(model) ?? 0;
}

function indexOf(listed: ListedModels): ReadonlyMap<string, KindBits> {
  const index = new Map<string, KindBits>();
  const file = (name: string, bit: KindBits) => index.set(name, (index.get(name) ?? 0) | bit);
  for (const { kind, models } of listed) {
    // A kind this Hub does not know serves nothing here, as candidates never asked it.
    const bit = BIT_OF.get(kind);
    if (bit === undefined) continue;
    for (const name of models) {
      file(name, bit);
      if (kind !== 'ollama' || !name.endsWith(LATEST_TAG)) continue;
      const untagged = name.slice(0, -LATEST_TAG.length);
      if (!hasOllamaTag(untagged)) file(untagged, bit);
    }
  }
  return index;
}
