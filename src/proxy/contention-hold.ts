/**
 * Whether contention may leave the engine prefix affinity qualified where it is (spec, "Local
 * engine contention", "Except the engine a session's prefix is warm on"). Only a warm prefix is
 * worth waiting beside another model's turn, so the hold needs both:
 * - the session's model is not generating there at another window (Ollama reloaded the runner
 *   for that request, which discarded the prefix), and
 * - the engine shows the model resident (Ollama's /api/ps, Lemonade's /api/v1/health). An
 *   engine with no residency API (vLLM, oMLX, llama.cpp) serves what it was started with, so the
 *   inventory that made it a candidate stands for residency.
 * Residency is asked only when contention could move the engine (it is on, with a peer to take the
 * request), the first check passes and the engine is contended, within the 500 ms placement
 * budget; a read that fails, cannot tell or runs out of time does not hold.
 */
import type { Dispatcher } from 'undici';
import { lemonadeLoadedModels, residentModels } from '../engines/engine-answers.js';
import { PLACEMENT_BUDGET_MS } from '../engines/health-snapshot.js';
import { isSameModel, isSameModelEitherWay } from '../engines/model-name.js';
import { ENGINE_LISTING_MAX_BYTES, getJson } from '../engines/probe-fetch.js';
import { unjoinable } from '../placement/steps/contention.js';
import type { Candidate } from '../placement/types.js';
import type { BusyWith } from '../routing-log/placement-records.js';

/** Why the hold was refused, for the one debug line the spec asks for. */
export type HoldRefusal = 'reloaded at another window' | 'not resident' | 'residency unknown';

export type HoldDecision = { readonly held: string | null; readonly refused: HoldRefusal | null };

/** The models an engine shows resident; null when it cannot tell (failed, timed out, unknown shape); 'inventory' when it has no residency API. */
export type ResidencyRead = (c: Candidate, signal: AbortSignal) => Promise<readonly string[] | null | 'inventory'>;

export function engineResidency(dispatcher: Dispatcher): ResidencyRead {
  return async (c, signal) => {
    if (c.engine === 'vllm' || c.engine === 'omlx' || c.engine === 'llamacpp') return 'inventory';
    if (c.engine === 'ollama') {
      const answer = await getJson(`${c.url}/api/ps`, dispatcher, signal, ENGINE_LISTING_MAX_BYTES);
      return answer.ok ? residentModels(answer.json) : null;
    }
    if (c.engine === 'lemonade') {
      const answer = await getJson(`${c.url}/api/v1/health`, dispatcher, signal, ENGINE_LISTING_MAX_BYTES);
      return answer.ok ? lemonadeLoadedModels(answer.json) : null;
    }
    return null;
  };
}

export async function affinityHold(args: {
  /** The candidate prefix affinity qualified; null when none. */
  readonly target: Candidate | null;
  readonly model: string;
  readonly runsAt: number | null;
  readonly busy: readonly BusyWith[];
  readonly read: ResidencyRead;
  /**
   * Whether contention could move the target at all: it is on, and a peer that is not withheld
   * can take the request. When not, the engine keeps its place whatever it holds, and nothing is
   * asked: the read can spend the whole placement budget (an audit measured +505 ms per turn with
   * HUB_POOL_CONTENTION_PLACEMENT=off).
   */
  readonly contentionCanMove: boolean;
  readonly budgetMs?: number;
}): Promise<HoldDecision> {
  const { target, model, runsAt, busy } = args;
  if (target === null) return { held: null, refused: null };
  if (!args.contentionCanMove) return { held: target.id, refused: null };
  // A peer's engines are the peer's to judge: affinity qualifying it is the hold, and nothing is asked.
  if (target.peerId !== null) return { held: target.id, refused: null };
  // Not contended: nothing to hold against, and no engine is asked.
  const kind = target.engine;
  if (kind === null || unjoinable(busy, model, runsAt, kind).length === 0) return { held: target.id, refused: null };
  if (busy.some((g) => isSameModelEitherWay(kind, g.model, model) && g.numCtx !== runsAt)) return { held: null, refused: 'reloaded at another window' };
  let resident: readonly string[] | null | 'inventory';
  try {
    resident = await args.read(target, AbortSignal.timeout(args.budgetMs ?? PLACEMENT_BUDGET_MS));
  } catch {
    resident = null;
  }
  if (resident === 'inventory') return { held: target.id, refused: null };
  if (resident === null) return { held: null, refused: 'residency unknown' };
  return resident.some((m) => target.engine !== null && isSameModel(target.engine, m, model))
    ? { held: target.id, refused: null }
    : { held: null, refused: 'not resident' };
}
