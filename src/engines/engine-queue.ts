/**
 * What an engine says about its own work, read beside the health probe (engine-queue-reader.ts).
 * This is the only view the Hub has of requests that reach an engine without passing through its
 * proxy (an app given the engine's own URL, a benchmark's direct arm, a curl): the proxy's own
 * count (proxy/in-flight.ts) never sees them. Absent is not zero: every field an engine did not
 * report is null.
 */

/** Most requests or slots read from one report; a larger figure is not believed (the field reads null). */
export const MAX_REPORTED_REQUESTS = 100_000;

export interface EngineQueueReport {
  /**
   * Requests the engine is working on now: vLLM's num_requests_running, llama.cpp's slots with
   * is_processing set. Null when the engine did not say (Ollama has no such figure).
   */
  readonly running: number | null;
  /**
   * Requests accepted and waiting for room: vLLM's num_requests_waiting (plus num_requests_swapped
   * on builds that still report it). Null when the engine did not say: llama.cpp's /slots shows
   * slots, not the requests deferred behind them.
   */
  readonly waiting: number | null;
  /** How many requests the engine runs at once: the length of llama.cpp's /slots. Null when not reported. */
  readonly slots: number | null;
}

/** Running plus waiting; null when the engine reported neither (then it said nothing about its queue). */
export function reportedRequests(r: EngineQueueReport): number | null {
  if (r.running === null && r.waiting === null) return null;
  return (r.running ?? 0) + (r.waiting ?? 0);
}

/** One report as the health snapshot holds it: the figures, and what the proxy itself had on that engine then. */
export interface EngineQueueView extends EngineQueueReport {
  /**
   * Requests this Hub's proxy had in flight on the engine when the report arrived: the part of the
   * engine's figure that is this Hub's own work, so it is not counted twice (placement/local-queue-depth.ts).
   */
  readonly ownInFlightAtReport: number;
  /** How old the report was when read, ms. */
  readonly reportedMsAgo: number;
}
