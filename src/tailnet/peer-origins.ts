/**
 * HUB_POOL_PEER_ORIGINS: `name=origin,name=origin`. Lets development setups and integration
 * tests run several Hubs on one machine, each dialled at its own http://127.0.0.1:<port>,
 * while peers keep their MagicDNS names as identities. The name side goes through the same
 * normalisation as stored peer names so a lookup by stored name finds it.
 */
import { isIP } from 'node:net';
import { authority, parseAddressTarget } from './address-target.js';
import { normalizePeerName } from './peer-name.js';

export interface PeerOrigins {
  map: ReadonlyMap<string, string>;
  /**
   * Entries keyed by an IP address (`192.168.77.2` or `192.168.77.2:5002`): probing and pairing
   * by that address dial the mapped origin instead. The address is still checked as if it were
   * dialled, so tests of pairing by address run on loopback without loosening the check.
   */
  addresses: ReadonlyMap<string, string>;
  problems: string[];
}

/** An http(s) origin with nothing after the host and port, or why not. */
function parseOrigin(raw: string): { ok: true; origin: string } | { ok: false; reason: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'is not a URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, reason: 'is not http or https' };
  if (url.username !== '' || url.password !== '') return { ok: false, reason: 'carries credentials' };
  // Every peer call appends its own /api/... path, so a base path here would be silently doubled.
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '' || /[?#]/.test(raw)) {
    return { ok: false, reason: 'has a path, query or fragment (only scheme://host[:port] is allowed)' };
  }
  // URL.origin has no trailing slash and drops a default port, which is the form we dial.
  return { ok: true, origin: url.origin };
}

/** Never throws: a bad entry is reported and skipped, the rest still apply. */
export function parsePeerOrigins(raw: string | null): PeerOrigins {
  const map = new Map<string, string>();
  const addresses = new Map<string, string>();
  const problems: string[] = [];
  const entries = (raw ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  for (const entry of entries) {
    const eq = entry.indexOf('=');
    if (eq < 0) {
      problems.push(`HUB_POOL_PEER_ORIGINS entry "${entry}" has no '=' (expected name=origin)`);
      continue;
    }
    const key = entry.slice(0, eq).trim();
    const address = parseAddressTarget(key);
    if (address.ok && isIP(address.target.host) !== 0) {
      const origin = parseOrigin(entry.slice(eq + 1).trim());
      if (!origin.ok) problems.push(`HUB_POOL_PEER_ORIGINS entry "${entry}": the origin ${origin.reason}`);
      else addresses.set(address.target.port === null ? address.target.host : authority(address.target.host, address.target.port), origin.origin);
      continue;
    }
    const name = normalizePeerName(key);
    if (!name.ok) {
      problems.push(`HUB_POOL_PEER_ORIGINS entry "${entry}": ${name.reason}`);
      continue;
    }
    const origin = parseOrigin(entry.slice(eq + 1).trim());
    if (!origin.ok) {
      problems.push(`HUB_POOL_PEER_ORIGINS entry "${entry}": the origin ${origin.reason}`);
      continue;
    }
    if (map.has(name.name)) {
      problems.push(`HUB_POOL_PEER_ORIGINS entry "${entry}": ${name.name} is already mapped; the first mapping is kept`);
      continue;
    }
    map.set(name.name, origin.origin);
  }
  return { map, addresses, problems };
}

/** The development origin mapped for this address and port (or the address alone), or null. */
export function mappedAddressOrigin(host: string, port: number, addresses: ReadonlyMap<string, string>): string | null {
  return addresses.get(authority(host, port)) ?? addresses.get(host) ?? null;
}

/** The development origin mapped for this peer name, or null when it is dialled by name. */
export function mappedOrigin(name: string, map: ReadonlyMap<string, string>): string | null {
  const normal = normalizePeerName(name);
  return map.get(normal.ok ? normal.name : name) ?? null;
}

/** Where to dial a peer: its mapped origin, else https://<name> (real TLS over the tailnet). */
export function peerOrigin(name: string, map: ReadonlyMap<string, string>): string {
  const normal = normalizePeerName(name);
  return mappedOrigin(name, map) ?? `https://${normal.ok ? normal.name : name}`;
}
