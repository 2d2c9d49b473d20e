/**
 * The HTTP edge: what every connection and request meets before any route (issue 9, defects
 * 5, 8 and 18). Sockets and request heads have deadlines and the server a connection ceiling,
 * so idle or trickling callers cannot hold the Hub's sockets or memory. Every request must name
 * this Hub in Host (DNS rebinding) and must not come from a web page on another origin unless
 * the operator allowed it (CSRF). Errors raised below Fastify's routes (malformed HTTP, a
 * timed-out head, a bad URL) answer in the catalogue like every other error.
 */
import { STATUS_CODES, type Server } from 'node:http';
import { hostname } from 'node:os';
import type { Socket } from 'node:net';
import type { FastifyHttpOptions, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { judgeBrowserRequest } from '../auth/browser-origin.js';
import { hostName, isLocalName, isOwnName } from '../auth/host-check.js';
import type { HubEnv } from '../config/env.js';
import { HubError } from '../errors.js';
import { toHubError } from './error-mapping.js';
import { answerError, clientErrorBody } from './error-answer.js';
import { answerNotFound } from './not-found.js';
import type { HubServices } from './services.js';

/** A request head (line and headers) must arrive within 10 s of the connection or the previous request: slowloris. */
export const HEADERS_TIMEOUT_MS = 10_000;
/** A whole request, body included, must arrive within 60 s (64 MiB needs about 1.1 MB/s). Answering may take longer. */
export const REQUEST_TIMEOUT_MS = 60_000;
/** An idle keep-alive connection is closed after 5 s (Node's own default; Fastify raises it to 72 s). */
export const KEEP_ALIVE_TIMEOUT_MS = 5_000;
/** How often Node checks the two deadlines above; its default of 30 s would let each run 30 s late. */
export const DEADLINE_CHECK_INTERVAL_MS = 1_000;
/** Requests served on one keep-alive connection before it is closed. */
export const MAX_REQUESTS_PER_SOCKET = 1_000;
/**
 * Open connections the server holds at once; past it new ones are closed unanswered
 * (http/connection-drops.ts tells the operator). It was 1,024 until the soak (bench/README.md,
 * 2026-12-04) showed 1,000 streams from one app's connection pool holding 1,022-1,024 open at
 * all times: the app's new streams and the peers' health polls were dropped in bursts, and the
 * peers took this Hub for unreachable. Each connection costs a file descriptor (a proxied one a
 * second, upstream); Node raises the descriptor limit to the hard limit at start, and idle
 * sockets still meet the head deadline.
 */
export const MAX_CONNECTIONS = 4_096;
/** Largest body read before the caller is authenticated: pairing messages, whose signature covers the body. */
export const PRE_AUTH_BODY_LIMIT_BYTES = 16 * 1024;

/**
 * Headers a browser may read on an answer to an allowed origin: all six attribution headers the
 * Hub adds (docs/api.md), the two that appear only where they apply included, and X-Should-Retry,
 * which the OpenAI SDK in a page reads before retrying a 502. A name left out is invisible to a
 * page's script even when the answer carries it.
 */
const EXPOSED_HEADERS = [
  'x-hub-pool-served-by',
  'x-hub-pool-backend',
  'x-hub-pool-model',
  'x-hub-pool-request-id',
  'x-hub-pool-affinity',
  'x-hub-pool-upstream-status',
  'x-should-retry',
].join(', ');
/** How long a browser may reuse a preflight answer. */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/** The Fastify and Node server options that carry the limits above and the trusted-proxy list. */
export function edgeServerOptions(
  env: HubEnv,
): Pick<
  FastifyHttpOptions<Server>,
  'http' | 'keepAliveTimeout' | 'requestTimeout' | 'maxRequestsPerSocket' | 'trustProxy' | 'clientErrorHandler' | 'frameworkErrors'
> {
  return {
    // requireHostHeader is off so a missing Host is refused by the edge hook, in the catalogue.
    http: {
      headersTimeout: HEADERS_TIMEOUT_MS,
      requestTimeout: REQUEST_TIMEOUT_MS,
      keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
      connectionsCheckingInterval: DEADLINE_CHECK_INTERVAL_MS,
      requireHostHeader: false,
    },
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    requestTimeout: REQUEST_TIMEOUT_MS,
    maxRequestsPerSocket: MAX_REQUESTS_PER_SOCKET,
    // X-Forwarded-For names the caller only when the socket's peer is a listed proxy (proxy-addr walks from the right).
    trustProxy: env.trustedProxies.length > 0 ? [...env.trustedProxies] : false,
    clientErrorHandler: answerClientError,
    // A URL the router cannot decode reaches no route, so under the app prefixes it answers as
    // an unknown path does there: in the app's dialect (error-answer.ts).
    frameworkErrors: (err, request, reply) => answerError(request as FastifyRequest, reply as FastifyReply, toHubError(err)),
  };
}

/**
 * Errors Node raises before a request exists (malformed HTTP, a head past its deadline, headers
 * too large), in the app's dialect when the bytes Node failed on name an app-facing path.
 */
function answerClientError(err: Error & { code?: string; rawPacket?: unknown }, socket: Socket): void {
  const inProgress = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
  if (err.code === 'ECONNRESET' || socket.destroyed || !socket.writable || inProgress) {
    socket.destroy();
    return;
  }
  const e =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? new HubError(
          'HUB_ERR_REQUEST_TIMEOUT',
          `the request did not arrive in time (head within ${HEADERS_TIMEOUT_MS / 1000} s, whole request within ${REQUEST_TIMEOUT_MS / 1000} s)`,
        )
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? new HubError('HUB_ERR_HEADERS_TOO_LARGE', 'the request headers are larger than this Hub reads (16 KiB)')
        : new HubError('HUB_ERR_BAD_REQUEST', 'the request is not well-formed HTTP/1.1');
  const body = JSON.stringify(clientErrorBody(err.rawPacket, e));
  socket.end(
    `HTTP/1.1 ${e.status} ${STATUS_CODES[e.status]}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
  socket.destroySoon();
}

/**
 * Whether this Hub answers to the name in a Host header. `known` settles it without asking
 * tailscaled (a loopback or machine name, or one the operator listed): true, or null when only
 * the MagicDNS name is left to compare; `answersTo` settles every case.
 */
export interface HostJudge {
  known(host: string): true | null;
  answersTo(host: string): Promise<boolean>;
}

export function hostJudge(s: Pick<HubServices, 'env' | 'peers'>): HostJudge {
  const machineName = hostname().trim().toLowerCase().replace(/\.$/, '') || null;
  // A host name the operator told the Hub to listen on (HUB_HOST, --host) is one of its names:
  // apps on the network call it by that name, and a rebinding page cannot send it as Host
  // without owning it. An IP address passes as a literal already.
  const listenName = hostName(s.env.host);
  const extra = listenName !== null && !isLocalName(listenName) ? [...s.env.allowedHosts, listenName] : s.env.allowedHosts;
  const known = (host: string): true | null => {
    const name = hostName(host);
    return name !== null && (isLocalName(name) || isOwnName(name, { selfFqdn: null, machineName, extra })) ? true : null;
  };
  return {
    known,
    answersTo: async (host) => {
      if (known(host)) return true;
      const name = hostName(host);
      if (name === null) return false;
      // Only now the MagicDNS name, which may mean asking tailscaled (cached 30 s).
      return isOwnName(name, { selfFqdn: (await s.peers.self()).nodeFqdn, machineName: null, extra: [] });
    },
  };
}

/** Runs first on every request: Host, browser origin, and unknown routes, all before any body is read. */
export function registerEdgeGuard(app: FastifyInstance, hosts: HostJudge, s: Pick<HubServices, 'env'>): void {
  const { answersTo } = hosts;
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const host = request.headers.host;
    if (host === undefined ? request.raw.httpVersion !== '1.0' : !(await answersTo(host))) {
      refuseUnread(request, reply);
      throw host === undefined
        ? new HubError('HUB_ERR_BAD_REQUEST', 'the request has no Host header')
        : new HubError(
            'HUB_ERR_HOST_NOT_ALLOWED',
            `this Hub does not answer to the name ${JSON.stringify(host.slice(0, 100))}; if it is one of its names, add it to HUB_ALLOWED_HOSTS`,
          );
    }
    const verdict = judgeBrowserRequest(request.method, request.headers, s.env.allowedOrigins);
    if (!verdict.allowed) {
      refuseUnread(request, reply);
      throw new HubError('HUB_ERR_CROSS_SITE_REFUSED', verdict.why);
    }
    if (verdict.corsOrigin !== null) {
      // On the raw response, so hijacked proxy answers carry it too; an engine's own CORS headers are dropped.
      reply.raw.setHeader('access-control-allow-origin', verdict.corsOrigin);
      reply.raw.setHeader('access-control-expose-headers', EXPOSED_HEADERS);
      reply.raw.setHeader('vary', 'Origin');
      if (request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined) {
        const asked = request.headers['access-control-request-headers'];
        void reply
          .code(204)
          .header('access-control-allow-methods', 'GET, POST, PATCH, DELETE')
          .header('access-control-allow-headers', typeof asked === 'string' ? asked.slice(0, 1024) : 'authorization, content-type')
          .header('access-control-max-age', String(PREFLIGHT_MAX_AGE_SECONDS))
          .send();
        return reply;
      }
    }
    if (request.is404) {
      refuseUnread(request, reply);
      answerNotFound(request, reply);
      return reply;
    }
    return undefined;
  });
}

/**
 * Marks the connection to close after a refusal sent before the body was read, so the body is
 * neither read nor drained: an unauthenticated caller's upload ends with the answer.
 */
export function refuseUnread(request: FastifyRequest, reply: FastifyReply): void {
  const length = request.headers['content-length'];
  if (request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0')) reply.raw.setHeader('connection', 'close');
}
