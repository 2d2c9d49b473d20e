/**
 * Why a health probe of a peer failed, in the three kinds the operator acts on differently
 * (spec, "A peer whose identity changed"): unreachable clears by itself; unauthorized and
 * identity_changed are refusals that waiting does not fix.
 */
import { HEADER_REFUSAL } from '../peer-auth/signed-headers.js';
import type { PeerAnswer } from './peer-client.js';

export type ProbeFailureKind = 'unreachable' | 'unauthorized' | 'identity_changed';

export function classifyProbe(answer: PeerAnswer): ProbeFailureKind | null {
  if (!answer.ok) return 'unreachable';
  if (answer.status === 200) return null;
  if (answer.status === 401) return answer.headers[HEADER_REFUSAL] === 'identity-mismatch' ? 'identity_changed' : 'unauthorized';
  return 'unreachable';
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
