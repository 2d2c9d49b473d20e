/**
 * How loaded a peer reads to the ranker (spec, "Ranking"). Its queue depth is what this Hub has
 * forwarded it and not finished reading (counted live), plus what its last snapshot counted
 * beyond this Hub's own forwards of that moment (its own apps' work and other Hubs'). Not the
 * larger of the two: the snapshot counts this Hub's forwards too and is up to a poll old, so a
 * node that served this Hub a moment ago would read busy until the next poll.
 */

/**
 * The load a peer ranks at when it did not report one: mid-load, never idle, so a node that
 * says nothing about itself is not mistaken for an empty one. The spec names the rule, not the
 * number; 2 queued requests puts it behind an idle node and ahead of a busy one.
 */
export const UNKNOWN_PEER_LOAD = 2;
/** The GPU-pressure band (0-3) of a node that did not measure one: mid-band, never 0. */
export const UNKNOWN_PRESSURE = 1;
/** The top GPU-pressure band (machine/pressure-band.ts: 0.85 smoothed busy or more); also where the floor of forwards stops. */
export const MAX_PRESSURE = 3;

export function peerQueueDepth(forwardedNow: number, reportedInFlight: number | null, forwardedAtSnapshot: number): number {
  if (reportedInFlight === null) return forwardedNow + UNKNOWN_PEER_LOAD;
  return forwardedNow + Math.max(0, reportedInFlight - forwardedAtSnapshot);
}

/** A peer's band, floored by this Hub's forwards there so a peer hard-coding 0 cannot win every tie. */
export function peerPressure(reportedBand: number | null, forwardedNow: number): number {
  return Math.max(reportedBand ?? UNKNOWN_PRESSURE, Math.min(MAX_PRESSURE, forwardedNow));
}
