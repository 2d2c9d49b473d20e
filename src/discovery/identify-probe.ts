/**
 * Asks a named candidate whether it is a Hub: GET https://<name>/api/inference/pool/identify
 * through the peer client (so the development dial map applies, and a name that resolves to a
 * public address is never dialled). The answer is untrusted and tiny; anything else is "not a Hub".
 */
import { IDENTIFY } from '../pairing/pair-by-address.js';
import type { PeerClient } from '../peers/peer-client.js';

/** A Hub on the tailnet answers /identify in milliseconds; 5 s covers a first HTTPS certificate fetch starting. */
export const DISCOVERY_PROBE_TIMEOUT_MS = 5_000;
/** /identify answers two fields. */
const IDENTIFY_MAX_BYTES = 16 * 1024;

export type IdentifyAnswer = { readonly ok: true; readonly poolProtocol: number } | { readonly ok: false; readonly reason: string };

export function identifyProbe(client: Pick<PeerClient, 'call'>): (name: string) => Promise<IdentifyAnswer> {
  return async (name) => {
    const answer = await client.call({ nodeFqdn: name }, 'GET', '/api/inference/pool/identify', undefined, {
      timeoutMs: DISCOVERY_PROBE_TIMEOUT_MS,
      maxBytes: IDENTIFY_MAX_BYTES,
      auth: 'none',
    });
    if (!answer.ok) return { ok: false, reason: answer.error };
    if (answer.status !== 200) return { ok: false, reason: `HTTP ${answer.status}` };
    const parsed = IDENTIFY.safeParse(answer.json);
    return parsed.success ? { ok: true, poolProtocol: parsed.data.poolProtocol ?? 1 } : { ok: false, reason: 'answered, but not as a Hub' };
  };
}
