/**
 * The headers an app receives: the engine's own, minus hop-by-hop ones, minus what speaks for
 * the engine's origin rather than this Hub's (cookies, CORS grants, HSTS, Alt-Svc and the like:
 * relayed, they would set cookies on, open up or redirect the Hub's own origin in an app's
 * browser; issue 9, defect 8), and minus any x-hub-pool-* header an engine or peer sent
 * (attribution is always this Hub's statement), plus this Hub's X-Hub-Pool-* headers, set
 * before the first body byte. CORS for an allowed origin is this Hub's to grant (http/edge.ts).
 */
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { modelHeaderValue } from './model-header.js';

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
  'proxy-authenticate',
  'proxy-authorization',
]);
/** Headers about the upstream's origin, which would take effect on this Hub's origin if relayed. */
const ORIGIN_SCOPED = new Set([
  'set-cookie',
  'set-cookie2',
  'alt-svc',
  'strict-transport-security',
  'clear-site-data',
  'public-key-pins',
  'www-authenticate',
  'timing-allow-origin',
]);

const NO_NAMES: ReadonlySet<string> = new Set();

export interface Attribution {
  /** 'local' or the serving peer's MagicDNS name. */
  readonly servedBy: string;
  /** Engine kind on the serving node; null when a peer did not say. */
  readonly backend: string | null;
  readonly model: string;
  readonly requestId: string;
  /** X-Hub-Pool-Affinity: hit, miss or skipped where prefix affinity judged the request; absent (undefined or null) otherwise. */
  readonly affinity?: string | null;
}

export function relayHeaders(upstream: IncomingHttpHeaders | Record<string, string | string[] | undefined>, attribution: Attribution): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  // Headers the engine lists in Connection belong to that one hop as well (RFC 9110, 7.6.1).
  const connection = upstream.connection;
  // The usual values name no header to drop ('keep-alive' is hop-by-hop already): parsing them
  // into a set on every answer was half of this function's time (2.7 against 5.7-6.5 µs a call
  // for a five-header answer, in a loop on the busy 2-core VM, 2026-12-02).
  const named =
    connection === undefined || connection === 'keep-alive' || connection === 'close'
      ? NO_NAMES
      : new Set(
          (Array.isArray(connection) ? connection.join(',') : connection)
            .split(',')
            .map((token) => token.trim().toLowerCase())
            .filter(Boolean),
        );
  for (const [name, value] of Object.entries(upstream)) {
    if (
      value === undefined ||
      HOP_BY_HOP.has(name) ||
      named.has(name) ||
      ORIGIN_SCOPED.has(name) ||
      name.startsWith('access-control-') ||
      name.startsWith('x-hub-pool-')
    )
      continue;
    out[name] = value;
  }
  out['x-hub-pool-served-by'] = attribution.servedBy;
  if (attribution.backend !== null) out['x-hub-pool-backend'] = attribution.backend;
  out['x-hub-pool-model'] = modelHeaderValue(attribution.model);
  out['x-hub-pool-request-id'] = attribution.requestId;
  if (attribution.affinity) out['x-hub-pool-affinity'] = attribution.affinity;
  return out;
}
