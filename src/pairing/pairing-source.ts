/**
 * Which caller address the PIN limiter may key on (spec, "What 'a source' means"). Behind a
 * reverse proxy or tunnel that the operator has not named in HUB_TRUST_PROXY, the source address
 * is the proxy's own, the same for every caller in the world: keying on it would let two wrong
 * guesses from anyone lock every requester out. So the address is used only when the operator
 * named the proxies (the address is then the client a named proxy vouches for, or the socket's),
 * or when the request shows no sign of having come through one: none of the provenance headers
 * the origin check knows (cf-ray and friends) and no forwarding header. Otherwise the limiter
 * keys on the claimed name alone; the PIN's own five-guess limit is the bound that matters.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { proxyProvenance } from '../auth/origin-check.js';
import { DEFAULT_TRUSTED_PROXIES } from '../config/edge-trust.js';

/** The address to key on, or null when it cannot name the caller. */
export function limiterSourceIp(ip: string, headers: IncomingHttpHeaders, proxiesNamed: boolean): string | null {
  if (proxiesNamed) return ip;
  const forwarded = headers['x-forwarded-for'] !== undefined || headers.forwarded !== undefined;
  return proxyProvenance(headers) === null && !forwarded ? ip : null;
}

/**
 * Whether the operator named the proxies whose word the Hub takes (HUB_TRUST_PROXY set to a list).
 * The default list (loopback only) is the Hub's guess, not the operator's statement, and `false`
 * names none.
 */
export function proxiesNamed(trustedProxies: readonly string[]): boolean {
  if (trustedProxies.length === 0) return false;
  return trustedProxies.length !== DEFAULT_TRUSTED_PROXIES.length || trustedProxies.some((entry, i) => entry !== DEFAULT_TRUSTED_PROXIES[i]);
}
