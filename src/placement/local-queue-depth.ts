/**
 * The queue depth placement reads for one of this node's engines: the proxy's own live count,
 * plus what the engine last reported beyond what the proxy had on it at that moment.
 *
 * The proxy's count (proxy/in-flight.ts) sees only requests it placed. An app pointed at the
 * engine's own port, a benchmark's direct arm or a curl from a shell is invisible to it, so a
 * full engine could rank as idle and pooled work queued behind it (the spec names this gap
 * under "Ranking"). Where the engine reports its own queue (vLLM's running and waiting gauges,
 * llama.cpp's busy slots), that report counts everything, including this Hub's own requests.
 *
 * Why not the larger of the two: the report is up to a refresh old, and the same request
 * counted on both sides must not count twice. `own + max(0, reported - ownAtReport)` is the
 * rule the spec already uses for a peer's published load: what the engine counted beyond this
 * Hub's work of that moment is other clients' work, and this Hub's own part is read live. So a
 * request of ours that finished after the report stops counting at once (the larger-of-two
 * would keep it for a whole refresh), and one we placed since counts at once (the report has
 * not seen it yet).
 *
 * A report that is absent, too old, or says nothing about requests (Ollama's residency list)
 * leaves the proxy's own count as it is: not reported is not zero.
 */
import { reportedRequests, type EngineQueueView } from '../engines/engine-queue.js';

export function localQueueDepth(ownNow: number, report: EngineQueueView | null | undefined): number {
  const reported = report ? reportedRequests(report) : null;
  if (reported === null || report == null) return ownNow;
  return ownNow + Math.max(0, reported - report.ownInFlightAtReport);
}

/** Requests beyond this Hub's own that the engine reported (other clients' work); null when it reported no queue. */
export function othersOnEngine(report: EngineQueueView | null | undefined): number | null {
  const reported = report ? reportedRequests(report) : null;
  if (reported === null || report == null) return null;
  return Math.max(0, reported - report.ownInFlightAtReport);
}
