/**
 * A lower bound on each request's time to first token that no placement can beat, in the node
 * model: the request alone on the fastest node for it, the model loaded, nothing queued, and the
 * most any cache could hold for it. That is the longest prefix it shares with a request that can
 * have been read before it: its session's earlier turns, its own turn's parallel calls, any
 * other session's calls (the agent's system prefix), never its session's later turns (a session
 * sends its next turn only when this one is answered). A policy's TTFT only adds to that: a
 * queue, a load, a reload, sharing the engine, a colder cache, a failed attempt.
 *
 * It holds for answers that did not come after a placeholder answer. In the model a placeholder
 * answer takes a fixed 300 ms whatever the prompt and leaves the whole prompt in the slot's
 * cache, so the app's retry there reads almost nothing. Such answers are left out of the
 * comparison (run.ts counts them) rather than letting that path loosen every bound.
 *
 * The oracle (policies/baselines.ts) is a strong heuristic and can be beaten (seed 7). This is
 * the other side: a bound, and a loose one, since it ignores contention altogether.
 */
import type { FleetSpec } from './data-files.js';
import { commonPrefix } from './engine.js';
import { prefillMs } from './prefill.js';
import type { Trace, TraceRequest } from './trace.js';

/** Each chat and agent call's bound, ms, by request id (embeddings have none: the TTFT figures leave them out). */
export function contentionFreeBounds(trace: Trace, fleet: FleetSpec): Map<string, number> {
  const calls: { r: TraceRequest; session: string | null; turn: number }[] = [];
  for (const s of trace.sessions) s.turns.forEach((t, i) => t.calls.forEach((r) => calls.push({ r, session: s.id, turn: i })));
  for (const o of trace.open) if (o.request.kind !== 'embed') calls.push({ r: o.request, session: null, turn: 0 });
  const out = new Map<string, number>();
  for (const c of calls) {
    let cached = 0;
    for (const other of calls) {
      if (other.r === c.r || other.r.segments.length === 0) continue;
      if (c.session !== null && other.session === c.session && other.turn > c.turn) continue;
      cached = Math.max(cached, commonPrefix(other.r.segments, c.r.segments));
    }
    // The engine always reads at least the last token again (engine.ts, #start).
    const from = Math.min(cached, c.r.promptTokens - 1);
    out.set(c.r.id, Math.min(...fleet.nodes.map((n) => prefillMs(from, c.r.promptTokens, n.prefillTokensPerSec, n.growthTokens))));
  }
  return out;
}
