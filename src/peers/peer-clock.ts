/**
 * How far each paired peer's clock is from this one's, for cihub pool doctor: signed requests
 * allow five minutes of skew (peer-auth/verify-signed.ts), and two clocks further apart refuse
 * each other while both look healthy. Read from the Date header of the peer's /identify answer
 * (one unauthenticated GET per peer, on the operator's request only), against the midpoint of
 * the call. Date has one-second resolution, ample against a five-minute window.
 */
import type { PeerRow } from '../store/peers.js';
import type { Clock } from '../util/clock.js';
import type { PeerClient } from './peer-client.js';

/** Per peer; the doctor runs them in parallel, so the whole check takes one timeout at most. */
export const PEER_CLOCK_TIMEOUT_MS = 5_000;

export interface PeerClock {
  readonly nodeFqdn: string;
  /** The peer's clock minus this one's, in ms; null when it could not be read. */
  readonly skewMs: number | null;
  /** Why not; null when read. */
  readonly error: string | null;
}

/** The skew a Date header shows against the local times the call started and ended. */
export function skewFromDate(dateHeader: unknown, sentAtMs: number, receivedAtMs: number): number | null {
  if (typeof dateHeader !== 'string') return null;
  const peerMs = Date.parse(dateHeader);
  if (!Number.isFinite(peerMs)) return null;
  return peerMs - Math.round((sentAtMs + receivedAtMs) / 2);
}

export async function peerClockSkews(rows: readonly PeerRow[], client: Pick<PeerClient, 'call'>, clock: Clock): Promise<PeerClock[]> {
  const paired = rows.filter((row) => row.status !== 'pending');
  return Promise.all(
    paired.map(async (row) => {
      const sentAtMs = clock.nowMs();
      const answer = await client.call({ nodeFqdn: row.nodeFqdn }, 'GET', '/api/inference/pool/identify', undefined, {
        timeoutMs: PEER_CLOCK_TIMEOUT_MS,
        auth: 'none',
      });
      if (!answer.ok) return { nodeFqdn: row.nodeFqdn, skewMs: null, error: answer.error };
      const skewMs = skewFromDate(answer.headers.date, sentAtMs, clock.nowMs());
      return { nodeFqdn: row.nodeFqdn, skewMs, error: skewMs === null ? 'the answer carried no usable Date header' : null };
    }),
  );
}
