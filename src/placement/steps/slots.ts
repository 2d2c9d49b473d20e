/**
 * Slot-aware placement (spec, "Slot-aware placement"): with poolSlotAwareness on, a candidate
 * whose queue already fills the slots its node stated goes behind every candidate in its group
 * that still has one free. The rules are the prompt ceiling's:
 * - unstated is neither full nor free: a node that stated no count, and an engine whose
 *   concurrency is not a slot count, keep their place (see `countsAsSlots`);
 * - demoted, never removed: the full ones form the next group, in the ranker's order;
 * - a group with no free candidate moves nothing.
 * The split is a new tier right behind its group, so the throughput split and the pin that
 * follow work inside "has a free slot or said nothing" and inside "full" separately, and a
 * pin at a full node cannot bring it back in front of a free one.
 */
import type { EngineKind } from '../../engines/engine-kind.js';
import type { SlotDemotion, SlotsRecord } from '../../routing-log/placement-records.js';
import { allCandidates } from '../tiers.js';
import type { Candidate, PlacementStep, Tiers } from '../types.js';

/** What the slots step reads; absent from the context when poolSlotAwareness is 0. */
export interface SlotsInput {
  /** The slot count each candidate's node stated for it, by candidate id; a candidate with none is absent. */
  readonly stated: ReadonlyMap<string, number>;
}

/**
 * Engines whose concurrency is a slot count: Ollama (OLLAMA_NUM_PARALLEL) and llama-server
 * (-np). The statement describes Ollama; a local llama.cpp server queues the same way, so a
 * node's count reads for it too. vLLM, Lemonade and oMLX batch continuously, so their queue is
 * not "full" at any count the operator states.
 */
export function countsAsSlots(engine: EngineKind): boolean {
  return engine === 'ollama' || engine === 'llamacpp';
}

export function slotEntry(c: Candidate, slots: number): SlotDemotion {
  return { node: c.node, backend: c.engine, inFlight: c.queueDepth, slots };
}

export const slotsStep: PlacementStep<'slots'> = {
  key: 'slots',
  run(tiers, ctx) {
    const input = ctx.slots;
    if (input === undefined) return { tiers, record: null };
    const all = allCandidates(tiers);
    if (!all.some((c) => input.stated.has(c.id))) return { tiers, record: null };
    const fullOf = (c: Candidate): SlotDemotion | null => {
      const slots = input.stated.get(c.id);
      return slots !== undefined && c.queueDepth >= slots ? slotEntry(c, slots) : null;
    };
    const full = all.map(fullOf).filter((e): e is SlotDemotion => e !== null);
    const demoted: SlotDemotion[] = [];
    const next: Candidate[][] = [];
    for (const tier of tiers) {
      const freeHere = tier.some((c) => input.stated.has(c.id) && fullOf(c) === null);
      const behind = freeHere ? tier.filter((c) => fullOf(c) !== null) : [];
      if (behind.length === 0) {
        next.push([...tier]);
        continue;
      }
      next.push(
        tier.filter((c) => fullOf(c) === null),
        behind,
      );
      for (const c of behind) demoted.push(fullOf(c)!);
    }
    const stated = all.filter((c) => input.stated.has(c.id));
    const record: SlotsRecord = { demoted, allFull: stated.length > 0 && full.length === stated.length, full, overridden: false };
    return { tiers: demoted.length === 0 ? tiers : (next as Tiers), record };
  },
};
