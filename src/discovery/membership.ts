/**
 * The second layer of the inbound tailnet check (spec, "What guards what"): with an Admin API
 * credential, a pairing request's name must be a device on this tailnet. The suffix check runs
 * first and always; this one only when a credential is set, and an Admin API that cannot be
 * asked degrades to a warning rather than turning away a legitimate request.
 */
import type { TailnetDevice } from '../tailnet/tailscale-status.js';
import type { AdminApiAnswer } from './admin-api.js';

export type Membership =
  | { readonly kind: 'member' }
  | { readonly kind: 'not-member' }
  /** The Admin API could not say; the request goes on with a warning. */
  | { readonly kind: 'unknown'; readonly error: string };

/** Whether `name` (normalised) is among the devices the Admin API listed. */
export function membershipOf(name: string, devices: AdminApiAnswer<readonly TailnetDevice[]>): Membership {
  if (!devices.ok) return { kind: 'unknown', error: devices.error };
  return devices.value.some((d) => d.nodeFqdn === name) ? { kind: 'member' } : { kind: 'not-member' };
}

/**
 * Which tailnet to ask about: the one the daemon reports, else "-" (the OAuth client's own) when
 * this Hub knows its tailnet only from the development stand-ins; null when it has joined none,
 * which leaves nothing to compare against.
 */
export function tailnetToAsk(daemonTailnetName: string | null, knownSuffix: string | null): string | null {
  if (daemonTailnetName !== null) return daemonTailnetName;
  return knownSuffix !== null ? '-' : null;
}
