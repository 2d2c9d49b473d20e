/**
 * What an operator does about an identity that cannot be used, in one place for status, doctor
 * and every route that refuses for it. Two different cases need two different fixes:
 * - a stored key that cannot be opened: a rotation makes a new one (and removes every pairing);
 * - no key was ever made, because the secret cannot be read or created: a rotation would fail
 *   the same way, so the secret itself has to be mended first.
 */
import { HubError } from '../errors.js';
import { DEFAULT_IDENTITY_RETRY_MS, type IdentityState } from './node-identity.js';

/** The fix when the sealing secret is the problem. */
export const SECRET_FIX =
  'write a secret into identity.secret in the data dir, or remove that file so the Hub writes a new one (or set HUB_POOL_IDENTITY_SECRET)';

/** The fix for an unusable identity; `nodeUuid` null means none was ever made. */
export function identityFix(identity: { nodeUuid: string | null }): string {
  return identity.nodeUuid === null
    ? `${SECRET_FIX}; the Hub tries to make its identity again every ${DEFAULT_IDENTITY_RETRY_MS / 1000} s`
    : 'cihub pool rotate-identity (it removes every pairing), then pair again';
}

/** The 503 an operator route answers while this Hub's identity cannot be used. */
export function identityUnavailable(state: Extract<IdentityState, { ok: false }>): HubError {
  return new HubError('HUB_ERR_IDENTITY_UNAVAILABLE', `this Hub's pool identity cannot be used: ${state.error}. Fix: ${identityFix(state)}`);
}
