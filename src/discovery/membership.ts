/**
 * The second layer of the inbound tailnet check (spec, "What guards what"): with an Admin API
 * credential, a pairing request's name must be a device on this tailnet. The suffix check runs
 * first and always; this one only when a credential is set, and an Admin API that cannot be
 * asked degrades to a warning rather than turning away a legitimate request.
 */
import type { TailnetDevice } from '../tailnet/tailscale-status.js';
import { elapsedMs } from '../util/clock.js';
import type { AdminApiAnswer } from './admin-api.js';

export type Membership =
  | { readonly kind: 'member' }
  | { readonly kind: 'not-member' }
  /**
   * The Admin API could not say; the request goes on with a warning. `remembered` is true when
   * the verdict is a recent failure answered again without asking (MembershipCache), so the
   * caller warns once per failed call rather than once per request a stranger sends.
   */
  | { readonly kind: 'unknown'; readonly error: string; readonly remembered?: true };

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

/** How long a device list answers membership questions before it is fetched again. */
export const MEMBERSHIP_LIST_TTL_MS = 30_000;
/**
 * A name missing from a list at least this old triggers one fresh fetch, so a device added a
 * moment ago is not refused for long, while a flood of requests under made-up names (the
 * route is unauthenticated) costs the Admin API at most one call per this interval.
 */
export const MEMBERSHIP_MISS_REFETCH_MS = 10_000;

/**
 * Membership answered from one cached device list. A failed fetch answers every check for
 * MEMBERSHIP_MISS_REFETCH_MS as unknown (the request goes on with a warning, as it would after a
 * fresh failure), then the next check asks again. Not remembering it made every request on the
 * unauthenticated route an OAuth exchange or device-list call while the Admin API was failing.
 * Both ages are elapsedMs (util/clock.ts): a list or failure stamped ahead of a wall clock set
 * back since answers nothing, so the Admin API is asked again at once, not once the clock caught up.
 */
type DeviceFetch = () => Promise<AdminApiAnswer<readonly TailnetDevice[]> | null>;

export class MembershipCache {
  readonly #fetch: DeviceFetch;
  readonly #nowMs: () => number;
  #list: { fetchedAtMs: number; names: ReadonlySet<string> } | null = null;
  #inFlight: ReturnType<DeviceFetch> | null = null;
  #failed: { atMs: number; verdict: Membership & { kind: 'unknown' } } | null = null;

  /** `fetch` answers null when this Hub has joined no tailnet: nothing to compare against. */
  constructor(fetch: DeviceFetch, nowMs: () => number) {
    this.#fetch = fetch;
    this.#nowMs = nowMs;
  }

  /** The verdict for `name`; null when there is no tailnet to compare against (the request is taken). */
  async check(name: string): Promise<Membership | null> {
    const now = this.#nowMs();
    const list = this.#list;
    const listAgeMs = list === null ? Infinity : elapsedMs(now, list.fetchedAtMs);
    const fresh = list !== null && listAgeMs < MEMBERSHIP_LIST_TTL_MS;
    if (fresh && list.names.has(name)) return { kind: 'member' };
    if (fresh && listAgeMs < MEMBERSHIP_MISS_REFETCH_MS) return { kind: 'not-member' };
    const failed = this.#failed;
    if (failed !== null && elapsedMs(now, failed.atMs) < MEMBERSHIP_MISS_REFETCH_MS) return { ...failed.verdict, remembered: true };
    // Concurrent requests share one fetch.
    const answer = await (this.#inFlight ??= this.#fetch().finally(() => (this.#inFlight = null)));
    if (answer === null) return null;
    const verdict = membershipOf(name, answer);
    if (answer.ok) {
      this.#list = { fetchedAtMs: this.#nowMs(), names: new Set(answer.value.map((d) => d.nodeFqdn)) };
      this.#failed = null;
    } else if (verdict.kind === 'unknown') this.#failed = { atMs: this.#nowMs(), verdict };
    return verdict;
  }
}
