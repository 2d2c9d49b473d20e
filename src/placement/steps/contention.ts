/**
 * Local engine contention (spec, "Local engine contention"): a local engine generating for work
 * this request cannot join (another model at any window, or on Ollama the same model at another
 * window) gives up the poolLocalAffinity head start. It moves behind the candidates right after
 * it, in its group, that are no busier than it once the head start is gone, ties included, and
 * stops at the first busier one: on a one-slot engine each queued request is a whole turn, while
 * the contended engine may be waiting out a turn that is nearly done. Demoted, never removed.
 * The engine prefix affinity qualified keeps its place when its prefix can still be warm there
 * (the caller checked residency before placing; see contention-hold.ts).
 *
 * The move splits the group: the engine and the busier nodes after it form a group of their own
 * behind the nodes it gave way to. The pin reorders within each group, and the spec has it that a
 * pin at this node does not put it back in front of a peer it gave way to; a move within one
 * group, which the pin then undid, left the row saying "behind core-2" of a request local served
 * first (found by an audit, 2026-12-05). The much-slower rule works within groups too, so it
 * cannot bring the engine back ahead of them either.
 */
import type { EngineKind } from '../../engines/engine-kind.js';
import { isSameModelEitherWay } from '../../engines/model-name.js';
import type { BusyWith, ContentionDemotion, ContentionRecord } from '../../routing-log/placement-records.js';
import type { Candidate, PlacementStep, Tiers } from '../types.js';

/** What the contention step reads; absent when HUB_POOL_CONTENTION_PLACEMENT is off or the route is not a chat or completion. */
export interface ContentionInput {
  /** The window the request named (options.num_ctx on a native route); null when none. */
  readonly numCtx: number | null;
  /** Generations in flight on each local engine, by backend id, windows resolved as the engine runs them. */
  readonly busy: ReadonlyMap<string, readonly BusyWith[]>;
  /** The window this request runs at on each local engine, by backend id (null: none named, none stated). */
  readonly runsAt: ReadonlyMap<string, number | null>;
  /** The candidate id prefix affinity holds, with its prefix shown warm there; null when none. */
  readonly affinityHeld: string | null;
  /** poolPressureWeight, so "no busier" reads the load the ranker read, less the head start. */
  readonly pressureWeight: number;
}

/**
 * The generations on an engine of `kind` this request cannot join: another model at any window,
 * or this model at another window. Names compare as the engine reads them: on Ollama `qwen3` and
 * `qwen3:latest` are one model, whichever spelling each app sent (audit, 2026-12-07).
 */
export function unjoinable(busy: readonly BusyWith[], model: string, runsAt: number | null, kind: EngineKind): BusyWith[] {
  return busy.filter((g) => !isSameModelEitherWay(kind, g.model, model) || g.numCtx !== runsAt);
}

/**
 * The window this request runs at on a local engine. An engine listed at null runs the model at
 * one window whatever the request names (only Ollama reloads for num_ctx), and EngineWork records
 * its generations at null too: falling back to the named window there made a llama.cpp engine
 * busy with this very model look contended on every native request that named num_ctx. Only an
 * engine with no entry falls back to the request's window.
 */
export function windowOn(input: ContentionInput, backendId: string): number | null {
  const listed = input.runsAt.get(backendId);
  return listed === undefined ? input.numCtx : listed;
}

function load(c: Candidate, pressureWeight: number): number {
  return pressureWeight === 0 ? c.queueDepth : c.queueDepth + pressureWeight * c.pressure;
}

/**
 * Whether contention can move a local engine at all: only behind a peer that can take the
 * request. Giving way to nothing changes nothing, and a withheld peer is asked only after this
 * engine whatever it finds. The proxy asks it too, before it reads residency for affinity's hold.
 */
export function peerCanTake(tiers: Tiers, withheld: (c: Candidate) => boolean): boolean {
  return tiers.some((t) => t.some((c) => c.peerId !== null && !withheld(c)));
}

export const contentionStep: PlacementStep<'contention'> = {
  key: 'contention',
  run(tiers, ctx) {
    const input = ctx.contention;
    if (input === undefined) return { tiers, record: null };
    if (!peerCanTake(tiers, (c) => ctx.withheld.has(c.id))) return { tiers, record: null };
    const demoted: ContentionDemotion[] = [];
    const next: Candidate[][] = [];
    for (const tier of tiers) {
      // The tier as groups; a demotion splits the group its engine is in.
      let groups: Candidate[][] = [[...tier]];
      for (const c of tier) {
        if (c.backendId === null || c.engine === null || c.node !== 'local') continue;
        const runsAt = windowOn(input, c.backendId);
        const busyWith = unjoinable(input.busy.get(c.backendId) ?? [], ctx.model, runsAt, c.engine);
        if (busyWith.length === 0) continue;
        const g = groups.findIndex((group) => group.includes(c));
        const group = groups[g]!;
        const at = group.indexOf(c);
        const mine = load(c, input.pressureWeight);
        let end = at + 1;
        while (end < group.length && load(group[end]!, input.pressureWeight) <= mine) end++;
        const passed = group.slice(at + 1, end);
        // Affinity overrides a move that would have happened; an engine every later node is busier
        // than keeps its place on its own, and the record says so (overriddenBy null).
        if (input.affinityHeld === c.id && passed.length > 0) {
          demoted.push({ node: c.node, backend: c.engine, backendId: c.backendId, busyWith, runsAt, behind: [], overriddenBy: 'affinity' });
          continue;
        }
        demoted.push({ node: c.node, backend: c.engine, backendId: c.backendId, busyWith, runsAt, behind: passed.map((p) => p.node), overriddenBy: null });
        if (passed.length === 0) continue;
        const split = [
          [...group.slice(0, at), ...passed],
          [c, ...group.slice(end)],
        ];
        groups = [...groups.slice(0, g), ...split, ...groups.slice(g + 1)];
      }
      next.push(...groups);
    }
    if (demoted.length === 0) return { tiers, record: null };
    const record: ContentionRecord = { numCtx: input.numCtx, demoted, overridden: false };
    return { tiers: next as Tiers, record };
  },
};
