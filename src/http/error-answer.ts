/**
 * The one choice of shape for an error the Hub answers itself, outside a proxy handler's own
 * writes: under the proxy's app-facing prefixes the dialect the app's client reads
 * (proxy/proxy-errors.ts), everywhere else the operator routes' `{ error: { code, message } }`.
 * The Ollama client shows `error` as it finds it, so an operator-shaped refusal on an Ollama
 * route reached its user as "[object Object]" (a refused Host on a path no route takes, headers
 * too large); the OpenAI client reads `error.message` and shows either shape. The inference
 * guard's 401 does not come here: the reference asks for OpenAI's shape on every route.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { HubError } from '../errors.js';
import { proxyErrorBody, writeProxyError } from '../proxy/proxy-errors.js';
import { appDialectOf } from '../proxy/route-table.js';

/** Answers `e` to a request Fastify holds, in the shape its path calls for. */
export function answerError(request: FastifyRequest, reply: FastifyReply, e: HubError): void {
  const dialect = appDialectOf(request.url);
  if (dialect === null) {
    void reply.code(e.status).send(e.toBody());
    return;
  }
  reply.hijack();
  writeProxyError(reply.raw, dialect, e.status, e.code, e.message);
}

/** Longest stretch of a refused request's first bytes searched for its request line: a path the proxy serves is far shorter. */
const REQUEST_LINE_SEARCH_BYTES = 2048;
const REQUEST_LINE = /^[A-Z]{3,10} (\S+) HTTP\/1\.[01]\r?\n/;

/**
 * The body of an error Node raised before a request existed (http/edge.ts), in the shape the
 * path calls for when the bytes it failed on begin with the request line. Node hands over the
 * chunk its parser failed in (`rawPacket`): a head past 16 KiB that a client writes in one go,
 * as fetch does, fails in its first chunk, which names the path; one that arrives in pieces
 * fails later, and its answer keeps the operator shape.
 */
export function clientErrorBody(rawPacket: unknown, e: HubError): unknown {
  const head = Buffer.isBuffer(rawPacket) ? rawPacket.subarray(0, REQUEST_LINE_SEARCH_BYTES).toString('latin1') : '';
  const target = REQUEST_LINE.exec(head)?.[1];
  const dialect = target === undefined ? null : appDialectOf(target);
  return dialect === null ? e.toBody() : proxyErrorBody(dialect, e.status, e.code, e.message);
}
