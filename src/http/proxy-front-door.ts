/**
 * The proxy's front door: the routed POSTs (chat, completions, generate, embeddings) answered
 * from node:http's 'request' event, ahead of Fastify, when the request is the ordinary case an
 * app sends. Fastify's routing, its five async onRequest hooks, its content-type parser and its
 * reply object were 5-10% of the Hub's busy time per non-streamed request in a CPU profile, for
 * an answer the proxy then writes on the raw response anyway. Measured gain: CPU per request
 * about 0.9x of the same Hub without the front door (medians 0.78-0.99x over five paired runs on
 * a loaded 2-core machine; bench/README.md, "2026-12-02 05:50 UTC").
 *
 * Nothing is re-implemented that decides a refusal: the front door takes a request only when
 * every guard Fastify runs would let it through, judged by the same functions (the shutdown
 * flag, the Host check without a tailscaled lookup, the browser-origin check with no CORS
 * answer to add, the inference guard, a JSON content type it can read without a parser, a
 * Content-Length within the body bound). Anything else (a refusal, a query string, a chunked
 * body, a MagicDNS Host, an allowed cross-origin page) goes to Fastify untouched, which answers
 * it exactly as before. What is left here is reading a body whose length is already known.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { judgeBrowserRequest } from '../auth/browser-origin.js';
import { HubError } from '../errors.js';
import { writeProxyError } from '../proxy/proxy-errors.js';
import { PROXY_PREFIX, ROUTED_ROUTES, type RoutedRoute } from '../proxy/route-table.js';
import type { HostJudge } from './edge.js';
import { inferenceRefusal, PROXY_BODY_LIMIT_BYTES, serveRouted } from './proxy-routes.js';
import type { HubServices } from './services.js';

/** The JSON content types the front door reads; any other goes to Fastify's parser (which refuses a non-JSON one with a 415). */
const PLAIN_JSON = /^application\/json(?:;\s*charset=utf-8)?$/i;
/** A Content-Length as digits only: anything odd is Fastify's to judge. */
const DIGITS = /^\d{1,12}$/;

export interface FrontDoorDeps {
  readonly s: HubServices;
  readonly hosts: HostJudge;
  /** True once the Hub is draining after SIGTERM: every request then meets Fastify's refusal. */
  readonly closing: () => boolean;
}

/** Puts the front door before Fastify's own 'request' listener, which gets every request the door does not take. */
export function installProxyFrontDoor(server: Server, deps: FrontDoorDeps): void {
  const listeners = server.listeners('request') as Array<(req: IncomingMessage, res: ServerResponse) => void>;
  if (listeners.length !== 1) throw new Error(`the proxy front door expects Fastify's one request listener, found ${listeners.length}`);
  const fastify = listeners[0]!;
  const routes = new Map<string, RoutedRoute>(ROUTED_ROUTES.map((route) => [`${PROXY_PREFIX}${route.path}`, route]));
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const route = req.method === 'POST' ? routes.get(req.url ?? '') : undefined;
    if (route !== undefined && admitted(req, deps)) readThenServe(req, res, route, deps.s);
    else fastify(req, res);
  });
}

/** Whether every guard in front of the proxy routes would let the request through, and its body is plain JSON of a stated length. */
function admitted(req: IncomingMessage, { s, hosts, closing }: FrontDoorDeps): boolean {
  const { headers } = req;
  if (closing()) return false;
  if (headers.host === undefined || hosts.known(headers.host) === null) return false;
  const browser = judgeBrowserRequest('POST', headers, s.env.allowedOrigins);
  if (!browser.allowed || browser.corsOrigin !== null) return false;
  // The key lookup reads SQLite synchronously, and a throw here would leave node:http's parser
  // callback as an uncaught exception and end the Hub (a damaged index page did, on any request
  // with a Bearer token from outside). Fastify runs the same guard in a hook that answers errors.
  try {
    if (inferenceRefusal(s, req.socket.remoteAddress, headers) !== null) return false;
  } catch {
    return false;
  }
  const type = headers['content-type'];
  const length = headers['content-length'];
  return (
    type !== undefined &&
    PLAIN_JSON.test(type) &&
    headers['transfer-encoding'] === undefined &&
    length !== undefined &&
    DIGITS.test(length) &&
    Number(length) <= PROXY_BODY_LIMIT_BYTES
  );
}

/** Reads the body (its length is known and within the bound) and hands it to the proxy, as Fastify's route would. */
function readThenServe(req: IncomingMessage, res: ServerResponse, route: RoutedRoute, s: HubServices): void {
  const expected = Number(req.headers['content-length']);
  const chunks: Buffer[] = [];
  let received = 0;
  req.on('data', (chunk: Buffer) => {
    received += chunk.length;
    chunks.push(chunk);
  });
  req.once('error', () => {
    // The caller's upload broke off: Fastify answers that with a 400 too, mostly to a closed socket.
    refuse(res, route, new HubError('HUB_ERR_BAD_REQUEST', 'the request body did not arrive whole'));
  });
  req.once('end', () => {
    if (received !== expected) {
      refuse(res, route, new HubError('HUB_ERR_BAD_REQUEST', 'the request body does not match its Content-Length'));
      return;
    }
    // A copy, as Fastify makes: the chunks are views of the socket's read buffer, which the
    // request would otherwise keep alive for as long as its stream runs.
    void serveRouted(s, route, Buffer.concat(chunks, received), res, req.headers);
  });
}

function refuse(res: ServerResponse, route: RoutedRoute, e: HubError): void {
  writeProxyError(res, route.dialect, e.status, e.code, e.message);
}
