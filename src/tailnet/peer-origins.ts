/**
 * HUB_POOL_PEER_ORIGINS: `name=origin,name=origin`. Lets development setups and integration
 * tests run several Hubs on one machine, each dialled at its own http://127.0.0.1:<port>,
 * while peers keep their MagicDNS names as identities. The name side goes through the same
 * normalisation as stored peer names so a lookup by stored name finds it.
 */
import { normalizePeerName } from './peer-name.js';

export interface PeerOrigins {
  map: ReadonlyMap<string, string>;
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
  const problems: string[] = [];
  const entries = (raw ?? '').split(',').map((e) => e.trim()).filter((e) => e !== '');
  for (const entry of entries) {
    const eq = entry.indexOf('=');
    if (eq < 0) {
      problems.push(`HUB_POOL_PEER_ORIGINS entry "${entry}" has no '=' (expected name=origin)`);
      continue;
    }
    const name = normalizePeerName(entry.slice(0, eq));
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
  return { map, problems };
}

/** Where to dial a peer: its mapped origin, else https://<name> (real TLS over the tailnet). */
export function peerOrigin(name: string, map: ReadonlyMap<string, string>): string {
  const normal = normalizePeerName(name);
  const key = normal.ok ? normal.name : name;
  return map.get(key) ?? `https://${key}`;
}
