/**
 * Whether a browser request came from a page on this Hub's own origin. Stricter than the edge's
 * check, which also admits origins listed in HUB_ALLOWED_ORIGINS: those are for apps calling
 * the proxy, never for a page acting with the operator's session.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { sameOrigin } from '../auth/browser-origin.js';

export function fromOwnOrigin(headers: IncomingHttpHeaders): boolean {
  const origin = typeof headers.origin === 'string' ? headers.origin : null;
  const host = typeof headers.host === 'string' ? headers.host : null;
  if (origin !== null) return sameOrigin(origin, host);
  // Browsers that send no Origin on a same-origin GET still say where it came from.
  const site = headers['sec-fetch-site'];
  return site === undefined || site === 'same-origin' || site === 'none';
}
