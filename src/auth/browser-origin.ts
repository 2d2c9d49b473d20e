/**
 * CSRF defence: a browser tells the server where a request came from (Origin, and on modern
 * browsers Sec-Fetch-Site). A web page on another origin may not call this Hub unless the
 * operator listed its origin in HUB_ALLOWED_ORIGINS, like Ollama's OLLAMA_ORIGINS. Requests
 * with neither header are not from a browser page (SDKs, curl, peers) and pass; the origin
 * check and the keys decide those.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { ANY_ORIGIN } from '../config/edge-trust.js';

export type BrowserVerdict =
  | { readonly allowed: true; /** The origin to name in Access-Control-Allow-Origin; null when none is needed. */ readonly corsOrigin: string | null }
  | { readonly allowed: false; readonly why: string };

const SAME_ORIGIN: BrowserVerdict = Object.freeze({ allowed: true, corsOrigin: null });

export function judgeBrowserRequest(method: string, headers: IncomingHttpHeaders, allowedOrigins: readonly string[]): BrowserVerdict {
  const origin = single(headers.origin);
  if (origin !== null) {
    if (allowedOrigins.includes(ANY_ORIGIN) || allowedOrigins.includes(origin.toLowerCase())) return { allowed: true, corsOrigin: origin };
    if (sameOrigin(origin, single(headers.host))) return SAME_ORIGIN;
    return { allowed: false, why: `a web page at ${origin.slice(0, 200)} may not call this Hub; list its origin in HUB_ALLOWED_ORIGINS to allow it` };
  }
  const site = single(headers['sec-fetch-site']);
  if (site === 'cross-site' || site === 'same-site') {
    // A link followed by the user shows the answer to the user, not to the page that linked it.
    const navigation = single(headers['sec-fetch-mode']) === 'navigate' && (method === 'GET' || method === 'HEAD');
    if (!navigation) return { allowed: false, why: 'a request made by a web page on another site may not call this Hub' };
  }
  return SAME_ORIGIN;
}

/** Origin and Host name the same authority (scheme aside: Tailscale Serve terminates TLS in front of the Hub). */
export function sameOrigin(origin: string, host: string | null): boolean {
  if (host === null) return false;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  const withoutDefaultPort = (h: string) =>
    h
      .toLowerCase()
      .replace(/\.$/, '')
      .replace(/:(80|443)$/, '');
  return url.origin !== 'null' && withoutDefaultPort(url.host) === withoutDefaultPort(host);
}

function single(value: string | string[] | undefined): string | null {
  return typeof value === 'string' ? value : null;
}
