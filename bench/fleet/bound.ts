/**
 * A lower bound on every request's time to first token that no placement can beat, in the node
 * model: the request alone on the fastest node for it, the model loaded, nothing queued, and the
 * most a cache could hold (everything but its own last segment, which is unique to the call). A
 * policy's TTFT only adds to that: a queue, a load, a reload, sharing the engine, a colder cache,
 * a failed attempt. One way round it exists in the model: a placeholder answer leaves the whole
 * prompt in a slot's cache, so the app's retry reads almost nothing; that path still costs the
 * placeholder answer's fixed read and stream first, so the bound is never above that.
 *
 * The oracle (policies/baselines.ts) is a strong heuristic and can be beaten (seed 7). This is
 * the other side: loose (it ignores contention altogether), but a bound.
 */
import type { FleetSpec } from './data-files.js';
import { DEGENERATE_DECODE_MS, DEGENERATE_PREFILL_MS } from './engine.js';
import { prefillMs } from './prefill.js';
import type { TraceRequest } from './trace.js';

/** Null for embeddings, which the TTFT figures leave out. */
export function contentionFreeBoundMs(r: TraceRequest, fleet: FleetSpec): number | null {
  if (r.kind === 'embed') return null;
  const last = r.segments[r.segments.length - 1]?.tokens ?? r.promptTokens;
  // The engine always reads at least the last token again (engine.ts, #start).
  const cached = Math.max(0, Math.min(r.promptTokens - last, r.promptTokens - 1));
  const alone = Math.min(...fleet.nodes.map((n) => prefillMs(cached, r.promptTokens, n.prefillTokensPerSec, n.growthTokens)));
  const placeholderPath = fleet.nodes.some((n) => n.faults.some((f) => f.kind === 'placeholders'))
    ? DEGENERATE_PREFILL_MS + DEGENERATE_DECODE_MS
    : Number.POSITIVE_INFINITY;
  return Math.min(alone, placeholderPath);
}
