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
import type { Candidate, PlacementStep } from '../types.js';

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
export function countsAsSlots(engine: string): engine is Extract<EngineKind, 'ollama' | 'llamacpp'> {
  return engine === 'ollama' || engine === 'llamacpp';
}

export function slotEntry(c: Candidate, slots: number): SlotDemotion {
  return { node: c.node, backend: c.engine, backendId: c.backendId, inFlight: c.queueDepth, loadReported: c.loadReported, slots };
}

export const slotsStep: PlacementStep<'slots'> = {
  key: 'slots',
  run(tiers, ctx) {
    const input = ctx.slots;
    if (input === undefined) return { tiers, record: null };
    // One pass and one lookup per candidate: the step read each candidate's count five times
    // over (a full list, then each group's free test, split and entries, then the stated list).
    let statedCount = 0;
    const full: SlotDemotion[] = [];
    const demoted: SlotDemotion[] = [];
    const next: (readonly Candidate[])[] = [];
    for (const tier of tiers) {
      const free: Candidate[] = [];
      const behind: Candidate[] = [];
      const entries: SlotDemotion[] = [];
      let freeHere = false;
      for (const c of tier) {
        const slots = input.stated.get(c.id);
        if (slots === undefined) {
          free.push(c);
          continue;
        }
        statedCount += 1;
        if (c.queueDepth < slots) {
          free.push(c);
          freeHere = true;
          continue;
        }
        const entry = slotEntry(c, slots);
        full.push(entry);
        entries.push(entry);
        behind.push(c);
      }
      if (freeHere && behind.length > 0) {
        next.push(free, behind);
        demoted.push(...entries);
      } else next.push(tier);
    }
    if (statedCount === 0) return { tiers, record: null };
    const record: SlotsRecord = { demoted, allFull: full.length === statedCount, full, overridden: false };
    return { tiers: demoted.length === 0 ? tiers : next, record };
  },
};
