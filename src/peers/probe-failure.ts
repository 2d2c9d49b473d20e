/**
 * What a health probe of a peer came to: the peer's capabilities document, or a failure in one
 * of the kinds the operator acts on differently (spec, "A peer whose identity changed"):
 * unreachable clears by itself; unauthorized and identity_changed are refusals that waiting
 * does not fix. A fourth kind is ours: cannot_authenticate, a probe this Hub never sent because
 * it holds no credential it can present. The spec's unreachable is a peer that gave no answer,
 * and calling this one that sent the operator to wait for something only they can fix.
 */
import { HEADER_REFUSAL } from '../peer-auth/signed-headers.js';
import { readCapabilities, type PeerCapabilities } from './capabilities.js';
import type { CredentialGap, PeerAnswer } from './peer-client.js';

export type ProbeFailureKind = 'unreachable' | 'unauthorized' | 'identity_changed' | 'cannot_authenticate';

export type ProbeVerdict =
  | { readonly ok: true; readonly capabilities: PeerCapabilities }
  | {
      readonly ok: false;
      readonly kind: ProbeFailureKind;
      readonly reason: string;
      /** What this Hub lacks, for cannot_authenticate; null for the other kinds. */
      readonly gap: CredentialGap | null;
    };

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
  if (!answer.ok) {
    if (answer.unsent !== null) return { ok: false, kind: 'cannot_authenticate', reason: answer.error, gap: answer.unsent };
    return { ok: false, kind: 'unreachable', reason: answer.error, gap: null };
  }
  if (answer.status === 401) {
    const kind = answer.headers[HEADER_REFUSAL] === 'identity-mismatch' ? 'identity_changed' : 'unauthorized';
    return { ok: false, kind, reason: `HTTP ${answer.status}`, gap: null };
  }
  if (answer.status !== 200) return { ok: false, kind: 'unreachable', reason: `HTTP ${answer.status}`, gap: null };
  const capabilities = readCapabilities(answer.json);
  if (capabilities === null) return { ok: false, kind: 'unreachable', reason: NOT_A_CAPABILITIES_DOCUMENT, gap: null };
  return { ok: true, capabilities };
}

/** The next step for the operator, named with the commands to run; `gap` says what cannot_authenticate lacks. */
export function probeFailureAction(kind: ProbeFailureKind, peerName: string, selfName: string | null, gap: CredentialGap | null = null): string {
  switch (kind) {
    case 'cannot_authenticate':
      return credentialGapAction(gap, peerName);
    case 'unreachable':
      return 'none needed: it rejoins on the first probe that succeeds';
    case 'unauthorized':
      return `run cihub pool status on ${peerName}: if this Hub is not listed there, re-pair (cihub pool unpair ${peerName}, then pair again); if it is, compare the two clocks (5 minutes of skew allowed)`;
    case 'identity_changed':
      return `re-pair: cihub pool unpair ${peerName} here; cihub pool pairing-pin on ${peerName}; cihub pool pair ${peerName} --pin <digits> here; then cihub pool approve ${selfName ?? '<this Hub>'} on ${peerName}`;
  }
}

function credentialGapAction(gap: CredentialGap | null, peerName: string): string {
  const sent = 'no probe was sent, and waiting will not change that';
  switch (gap) {
    case 'own_key_unusable':
      return `${sent}: this Hub's own identity key cannot be used (see identity under This node in cihub pool status). Mend it as that line says (usually cihub pool rotate-identity, which removes every pairing), then pair ${peerName} again`;
    case 'signed_required':
      return `${sent}: poolRequireSignedPeers is on and ${peerName} is still paired by bearer token. Turn it off (cihub pool set poolRequireSignedPeers false) until status shows ${peerName} signed (the move to signed requests rides the health poll), or unpair ${peerName} and pair it again with a PIN`;
    case 'no_token':
      return `${sent}: this Hub holds neither a token nor a pinned key for ${peerName}. Re-pair: cihub pool unpair ${peerName}, then pair again`;
    case 'no_name':
      return `${sent}: this Hub has no tailnet name to present. Connect Tailscale with MagicDNS on (cihub pool doctor, check C1), or set HUB_NODE_FQDN`;
    case null:
      return `${sent}: this Hub holds no credential ${peerName} would accept`;
  }
}
