/**
 * The three lists that decide whom the HTTP edge believes (docs/operator-guide.md, "Who can call
 * what"): which hops' X-Forwarded-For names the caller, which Host names this Hub answers to,
 * and which browser origins may call it. A value that cannot be read is refused at start, with
 * the entry named: guessing at a security list would either lock everyone out or let everyone in.
 */
import { isIP } from 'node:net';
import { EnvError } from './env-error.js';

/** HUB_TRUST_PROXY unset: only a proxy on this machine (Tailscale Serve, cloudflared) is believed. */
export const DEFAULT_TRUSTED_PROXIES: readonly string[] = Object.freeze(['127.0.0.0/8', '::1/128']);

const TRUE_WORDS = new Set(['1', 'true', 'yes', 'on']);
const OFF_WORDS = new Set(['0', 'false', 'off', 'no', 'none']);

function entries(raw: string): string[] {
  return raw
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
}

/**
 * HUB_TRUST_PROXY: a comma-separated list of addresses and CIDR ranges whose X-Forwarded-For is
 * believed. `true` is refused: it would believe the header from any caller, which is how a
 * direct caller once passed itself off as 127.0.0.1 (issue 9, defect 7).
 */
export function parseTrustedProxies(raw: string | undefined): readonly string[] {
  if (raw === undefined || raw.trim() === '') return DEFAULT_TRUSTED_PROXIES;
  const word = raw.trim().toLowerCase();
  if (OFF_WORDS.has(word)) return Object.freeze([]);
  if (TRUE_WORDS.has(word)) {
    throw new EnvError(
      'HUB_TRUST_PROXY',
      `HUB_TRUST_PROXY=${raw.trim()} would believe X-Forwarded-For from any caller; list the proxies' addresses instead (e.g. HUB_TRUST_PROXY=127.0.0.1,::1,10.0.0.0/8), or set it to false`,
    );
  }
  return Object.freeze(
    entries(raw).map((entry) => {
      const cidr = normalizeCidr(entry);
      if (cidr === null)
        throw new EnvError('HUB_TRUST_PROXY', `HUB_TRUST_PROXY entry "${entry}" is not an IP address or a CIDR range (e.g. 10.0.0.0/8, fd00::/8)`);
      return cidr;
    }),
  );
}

/** An address or address/prefix, with the prefix in range for its family; null otherwise. */
export function normalizeCidr(entry: string): string | null {
  const slash = entry.indexOf('/');
  const address = (slash < 0 ? entry : entry.slice(0, slash)).trim();
  const family = isIP(address);
  if (family === 0) return null;
  const maxPrefix = family === 4 ? 32 : 128;
  if (slash < 0) return `${address}/${maxPrefix}`;
  const prefixText = entry.slice(slash + 1).trim();
  if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > maxPrefix) return null;
  return `${address}/${Number(prefixText)}`;
}

/** Longest DNS name (RFC 1035): anything longer in a Host list is a typo or worse. */
const MAX_HOST_NAME_LENGTH = 253;
const HOST_NAME = /^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*\.?$/;

/**
 * HUB_ALLOWED_HOSTS: extra names this Hub answers to beyond its loopback names, IP literals, its
 * MagicDNS name and the machine's host name (e.g. a Docker service name, a tunnel's hostname).
 * Names only, without a port; a leading `*.` allows every subdomain of a name.
 */
export function parseAllowedHosts(raw: string | undefined): readonly string[] {
  if (raw === undefined) return Object.freeze([]);
  return Object.freeze(
    entries(raw).map((entry) => {
      const name = entry.toLowerCase().replace(/\.$/, '');
      const bare = name.startsWith('*.') ? name.slice(2) : name;
      if (bare.length > MAX_HOST_NAME_LENGTH || !HOST_NAME.test(bare) || isIP(bare) !== 0) {
        throw new EnvError(
          'HUB_ALLOWED_HOSTS',
          `HUB_ALLOWED_HOSTS entry "${entry}" is not a host name (names only, no scheme, port or path; *.example.com allows its subdomains; IP addresses are always allowed)`,
        );
      }
      return name;
    }),
  );
}

/** Every origin is allowed: the operator's explicit choice, written `HUB_ALLOWED_ORIGINS=*`. */
export const ANY_ORIGIN = '*';

/**
 * HUB_ALLOWED_ORIGINS: browser origins (scheme://host[:port]) that may call this Hub from a web
 * page, like Ollama's OLLAMA_ORIGINS. Empty by default: only pages this Hub serves itself.
 */
export function parseAllowedOrigins(raw: string | undefined): readonly string[] {
  if (raw === undefined) return Object.freeze([]);
  return Object.freeze(
    entries(raw).map((entry) => {
      if (entry === ANY_ORIGIN) return ANY_ORIGIN;
      const origin = normalizeOrigin(entry);
      if (origin === null)
        throw new EnvError('HUB_ALLOWED_ORIGINS', `HUB_ALLOWED_ORIGINS entry "${entry}" is not an origin (scheme://host[:port], no path; or * for any)`);
      return origin;
    }),
  );
}

/** The serialised origin of `scheme://host[:port]` with nothing after it; null for anything else. */
export function normalizeOrigin(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (url.origin === 'null' || url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') return null;
  if (url.pathname !== '/' || /[?#]/.test(raw)) return null;
  return url.origin;
}
