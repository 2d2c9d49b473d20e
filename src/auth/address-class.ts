/**
 * Where an address sits, for the inference guard's origin check. Tailnet ranges are checked
 * before the private ones because fd7a:115c:a1e0::/48 lies inside fc00::/7.
 */
import { isIP } from 'node:net';

export type AddressClass = 'loopback' | 'private' | 'tailnet' | 'public' | 'invalid';

function ipv4Parts(ip: string): number[] | null {
  const parts = ip.split('.').map(Number);
  return parts.length === 4 && parts.every((p) => Number.isInteger(p) && p >= 0 && p <= 255) ? parts : null;
}

function classifyV4(ip: string): AddressClass {
  const p = ipv4Parts(ip);
  if (!p) return 'invalid';
  const [a, b] = p as [number, number, number, number];
  if (a === 127) return 'loopback';
  if (a === 100 && b >= 64 && b <= 127) return 'tailnet'; // 100.64.0.0/10, Tailscale's CGNAT range
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254)) return 'private';
  return 'public';
}

/**
 * Addresses already classified, so the inference guard does not parse a caller's address on
 * every request: classifying '127.0.0.1' (trim, two regex replaces, isIP, split) was 0.8% of the
 * Hub's busy time per proxied request in the bench:quick profile (2026-12-02). The class of a
 * string never changes, so this is a pure memo; it is bounded, and emptied when full, because
 * forwarded hops come from headers anyone can write.
 */
const classified = new Map<string, AddressClass>();
const MAX_CLASSIFIED = 1_024;

export function classifyAddress(raw: string): AddressClass {
  let cls = classified.get(raw);
  if (cls === undefined) {
    cls = classifyUncached(raw);
    if (classified.size >= MAX_CLASSIFIED) classified.clear();
    classified.set(raw, cls);
  }
  return cls;
}

function classifyUncached(raw: string): AddressClass {
  const ip = raw
    .trim()
    .replace(/^\[|\]$/g, '')
    .replace(/%.*$/, '');
  const family = isIP(ip);
  if (family === 4) return classifyV4(ip);
  if (family !== 6) return 'invalid';
  const lower = ip.toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (mapped) return classifyV4(mapped[1]!);
  if (lower === '::1') return 'loopback';
  if (lower.startsWith('fd7a:115c:a1e0:')) return 'tailnet';
  if (/^f[cd][0-9a-f]{2}:/.test(lower) || /^fe[89ab][0-9a-f]:/.test(lower)) return 'private';
  return 'public';
}
