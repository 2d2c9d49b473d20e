/**
 * What an operator does about an identity that cannot be used, in one place for status, doctor,
 * the dashboard and every route that refuses for it. Each cause (identity-failure-cause.ts) has
 * its own fix:
 * - a stored key that cannot be opened: a rotation makes a new one (and removes every pairing);
 * - a secret that is empty, or cannot be read or created: a rotation would fail the same way, so
 *   the secret itself has to be mended first;
 * - the disk refusing a read or write: room or a writable disk, after which the Hub carries on
 *   by itself; the secret is fine, and "write a secret into identity.secret" cannot be done on a
 *   full disk anyway.
 */
import { HubError } from '../errors.js';
import type { IdentityFailureCause } from './identity-failure-cause.js';
import { DEFAULT_IDENTITY_RETRY_MS, type IdentityState } from './node-identity.js';

const RETRY_S = DEFAULT_IDENTITY_RETRY_MS / 1000;

/** What to do about each cause: the operator's part only. */
export function causeFix(cause: IdentityFailureCause): string {
  switch (cause) {
    case 'key-unopenable':
      return 'cihub pool rotate-identity (it removes every pairing), then pair again';
    case 'secret-invalid':
      return 'write a secret into identity.secret in the data dir, or remove that file so the Hub writes a new one (or set HUB_POOL_IDENTITY_SECRET)';
    case 'secret-unreadable':
      return 'let the account running the Hub read identity.secret and write the data dir, or remove whatever is at identity.secret so the Hub writes a new file there (or set HUB_POOL_IDENTITY_SECRET)';
    case 'disk-refused':
      return 'free space on the disk holding the data dir, or make that disk writable again if it turned read-only or is failing';
    case 'other':
      return "act on the reason given (the Hub's log has the full error)";
  }
}

/** The fix for an unusable identity, with what the Hub does meanwhile by itself. */
export function identityFix(cause: IdentityFailureCause): string {
  switch (cause) {
    // Retried too, in case the secret comes back, but waiting is not the fix.
    case 'key-unopenable':
      return causeFix(cause);
    // load({ retryDiskRefusal }) in node-identity.ts makes it again at once for these actions.
    case 'disk-refused':
      return `${causeFix(cause)}; nothing else is needed: the Hub tries again by itself within ${RETRY_S} s, and at once when a pairing PIN or a pairing needs its identity`;
    default:
      return `${causeFix(cause)}; the Hub tries to make its identity again every ${RETRY_S} s`;
  }
}

/** The 503 an operator route answers while this Hub's identity cannot be used; `identityCause` in the body names the cause. */
export function identityUnavailable(state: Extract<IdentityState, { ok: false }>): HubError {
  return new HubError('HUB_ERR_IDENTITY_UNAVAILABLE', `this Hub's pool identity cannot be used: ${state.error}. Fix: ${identityFix(state.cause)}`, {
    details: { identityCause: state.cause },
  });
}
