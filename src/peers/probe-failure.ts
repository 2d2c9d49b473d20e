/**
 * What a health probe of a peer came to: the peer's capabilities document, or a failure in one
 * of the three kinds the operator acts on differently (spec, "A peer whose identity changed"):
 * unreachable clears by itself; unauthorized and identity_changed are refusals that waiting
 * does not fix.
 */
import { HEADER_REFUSAL } from '../peer-auth/signed-headers.js';
import { readCapabilities, type PeerCapabilities } from './capabilities.js';
import type { PeerAnswer } from './peer-client.js';

export type ProbeFailureKind = 'unreachable' | 'unauthorized' | 'identity_changed';

export type ProbeVerdict =
  { readonly ok: true; readonly capabilities: PeerCapabilities } | { readonly ok: false; readonly kind: ProbeFailureKind; readonly reason: string };

/** Said when a 200 carried no capabilities document. */
export const NOT_A_CAPABILITIES_DOCUMENT =
  'HTTP 200 without a capabilities document: something other than a Hub answers at this name (is another web app published there?)';

/**
 * A 200 counts only when its body is a capabilities document. Whatever else answers 200 at the
 * peer's name (Serve now pointing at another web app with an SPA fallback, an empty body, a
 * bare "ok") is not that Hub answering, so it is a failure like no answer at all: otherwise
 * such a peer would stay connected forever and could never be marked unreachable.
 */
export function judgeProbe(answer: PeerAnswer): ProbeVerdict {
  if (!answer.ok) return { ok: false, kind: 'unreachable', reason: answer.error };
  if (answer.status === 401) {
    const kind = answer.headers[HEADER_REFUSAL] === 'identity-mismatch' ? 'identity_changed' : 'unauthorized';
    return { ok: false, kind, reason: `HTTP ${answer.status}` };
  }
  if (answer.status !== 200) return { ok: false, kind: 'unreachable', reason: `HTTP ${answer.status}` };
  const capabilities = readCapabilities(answer.json);
  if (capabilities === null) return { ok: false, kind: 'unreachable', reason: NOT_A_CAPABILITIES_DOCUMENT };
  return { ok: true, capabilities };
}

/** The next step for the operator, named with the commands to run. */
export function probeFailureAction(kind: ProbeFailureKind, peerName: string, selfName: string | null): string {
  switch (kind) {
    case 'unreachable':
      return 'none needed: it rejoins on the first probe that succeeds';
    case 'unauthorized':
      return `run cihub pool status on ${peerName}: if this Hub is not listed there, re-pair (cihub pool unpair ${peerName}, then pair again); if it is, compare the two clocks (5 minutes of skew allowed)`;
    case 'identity_changed':
      return `re-pair: cihub pool unpair ${peerName} here; cihub pool pairing-pin on ${peerName}; cihub pool pair ${peerName} --pin <digits> here; then cihub pool approve ${selfName ?? '<this Hub>'} on ${peerName}`;
  }
}
