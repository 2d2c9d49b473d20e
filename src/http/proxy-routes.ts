/**
 * The app-facing proxy under /api/inference/pool, both dialects. The inference guard runs
 * before the body is read; bodies are kept as the raw bytes the app sent (parsed once by
 * the proxy), and responses are written straight to the socket so streams pass untouched.
 */
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { bearerToken } from '../auth/bearer.js';
import { checkOrigin } from '../auth/origin-check.js';
import type { ProxyDialect } from '../engines/types.js';
import { HubError } from '../errors.js';
import { SESSION_HEADER } from '../placement/affinity/session-key.js';
import { writeProxyError, type InferenceRefusalCode } from '../proxy/proxy-errors.js';
import { MODEL_MANAGEMENT_PATHS, PROXY_PREFIX, ROUTED_ROUTES, type RoutedRoute } from '../proxy/route-table.js';
import { refuseUnread } from './edge.js';
import { answerError } from './error-answer.js';
import { toHubError } from './error-mapping.js';
import type { HubServices } from './services.js';

/** What Ollama answers at its root, word for word: a client that reads the text finds what it expects. */
const OLLAMA_HEARTBEAT_TEXT = 'Ollama is running';

/** Largest request body the proxy reads: 64 MiB, far above a 1M-token prompt at ~4 bytes a token. */
export const PROXY_BODY_LIMIT_BYTES = 64 * 1024 * 1024;

export async function registerProxyRoutes(app: FastifyInstance, s: HubServices): Promise<void> {
  await app.register(async (scope) => {
    // JSON only: text/plain, form and untyped bodies are what a web page can send without asking
    // the browser first (a CORS "simple" request), so they are refused with a 415 (issue 9, defect 8).
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: PROXY_BODY_LIMIT_BYTES }, (_req, body, done) => done(null, body));
    scope.addHook('onRequest', async (request, reply) => guardInference(s, request, reply));
    // Errors raised before a handler runs (a body over the limit, a broken Content-Length) answer
    // in the app's dialect too, not in the operator routes' shape.
    scope.setErrorHandler((err, request, reply) => {
      const hubError = toHubError(err, request.headers['content-type'], PROXY_BODY_LIMIT_BYTES);
      if (hubError.code === 'HUB_ERR_INTERNAL') s.logger.error({ err }, 'proxy route failed');
      answerError(request, reply, hubError);
    });

    for (const route of ROUTED_ROUTES) {
      scope.post(`${PROXY_PREFIX}${route.path}`, async (request, reply) => {
        reply.hijack();
        await serveRouted(s, route, bodyOf(request), reply.raw, request.headers);
      });
    }
    // Ollama's own clients check the server with HEAD / before a command (the Go CLI's heartbeat)
    // and look for a 200; pointed at the pool, that is the prefix itself (protocols.md 2.1).
    for (const root of [PROXY_PREFIX, `${PROXY_PREFIX}/`]) {
      scope.get(root, async (_req, reply) => reply.type('text/plain; charset=utf-8').send(OLLAMA_HEARTBEAT_TEXT));
    }
    scope.get(`${PROXY_PREFIX}/v1/models`, async (_req, reply) => serve(reply, 'openai', s, () => s.localRoutes.openAIModels(reply.raw)));
    // A wildcard, not :model: an id such as Qwen/Qwen3-4B reaches here unencoded from clients that
    // do not escape path segments, and as one %2F-escaped segment from those that do.
    scope.get(`${PROXY_PREFIX}/v1/models/*`, async (request, reply) =>
      serve(reply, 'openai', s, () => s.localRoutes.openAIModel((request.params as { '*': string })['*'], reply.raw)),
    );
    scope.get(`${PROXY_PREFIX}/api/tags`, async (_req, reply) => serve(reply, 'ollama', s, () => s.localRoutes.ollamaTags(reply.raw)));
    scope.get(`${PROXY_PREFIX}/api/ps`, async (_req, reply) => serve(reply, 'ollama', s, () => s.localRoutes.ollamaPs(reply.raw)));
    scope.get(`${PROXY_PREFIX}/api/version`, async (_req, reply) => serve(reply, 'ollama', s, () => s.localRoutes.ollamaVersion(reply.raw)));
    scope.post(`${PROXY_PREFIX}/api/show`, async (request, reply) => serve(reply, 'ollama', s, () => s.localRoutes.ollamaShow(bodyOf(request), reply.raw)));
    // Refused before the body is read: a blob upload (a GGUF of gigabytes, not JSON) otherwise met
    // the JSON-only parser first and heard 415 or 413 about a request the pool never serves.
    const notProxied = async (request: FastifyRequest, reply: FastifyReply) => {
      refuseUnread(request, reply);
      reply.hijack();
      const path = request.url.slice(PROXY_PREFIX.length).split('?')[0]!.slice(0, 200);
      const refusal = new HubError(
        'HUB_ERR_ROUTE_NOT_PROXIED',
        `${path} is not relayed by the pool: managing models is done on each node's own engine, never through the pool`,
      );
      writeProxyError(reply.raw, 'ollama', refusal.status, refusal.code, refusal.message);
    };
    for (const path of MODEL_MANAGEMENT_PATHS) scope.all(`${PROXY_PREFIX}${path}`, { onRequest: notProxied }, async () => undefined);
  });
}

function bodyOf(request: FastifyRequest): Buffer {
  return Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
}

/** One routed request (chat, completion, generate, embeddings) handed to the pool proxy, from Fastify or from the front door. */
export function serveRouted(s: HubServices, route: RoutedRoute, body: Buffer, res: ServerResponse, headers: IncomingHttpHeaders): Promise<void> {
  return serveRaw(res, route.dialect, s, () =>
    s.proxy.serveRouted(route, body, res, {
      accept: headers.accept,
      sessionHeader: headers[SESSION_HEADER],
      trace: { traceparent: headers.traceparent, tracestate: headers.tracestate },
    }),
  );
}

/** Runs a proxy handler on the raw response; errors thrown before anything was sent answer in the app's dialect. */
async function serve(reply: FastifyReply, dialect: ProxyDialect, s: HubServices, handler: () => Promise<void>): Promise<void> {
  reply.hijack();
  await serveRaw(reply.raw, dialect, s, handler);
}

async function serveRaw(res: ServerResponse, dialect: ProxyDialect, s: HubServices, handler: () => Promise<void>): Promise<void> {
  try {
    await handler();
  } catch (err) {
    const hubError = toHubError(err);
    if (hubError.code === 'HUB_ERR_INTERNAL') s.logger.error({ err }, 'proxy handler failed');
    writeProxyError(res, dialect, hubError.status, hubError.code, hubError.message);
  }
}

/** Why the inference guard refuses a caller (401, in OpenAI's shape); null when it is admitted by origin or by an inference key. */
export function inferenceRefusal(
  s: Pick<HubServices, 'env' | 'apiKeys'>,
  socketAddress: string | undefined,
  headers: IncomingHttpHeaders,
): { readonly code: InferenceRefusalCode; readonly message: string } | null {
  // The socket's own address, always: forwarded headers can only add hops to judge, never replace
  // the one that connected, so X-Forwarded-For: 127.0.0.1 buys nothing (issue 9, defect 7).
  const origin = checkOrigin(socketAddress, headers, s.env.knobs.tailnetRequiresKey());
  if (origin.inside) return null;
  const token = bearerToken(headers.authorization);
  if (token !== null && s.apiKeys.lookup(token)?.scope === 'inference') return null;
  return token === null
    ? {
        code: 'missing_api_key',
        message: `This request needs an inference API key because ${origin.why}. Create one on the Hub with \`cihub api-key create --name <label> --scope inference\` and send it as Authorization: Bearer <key>.`,
      }
    : {
        code: 'invalid_api_key',
        message: `The API key sent is not a live inference key for this Hub (${origin.why}, so a key is required). Create one with \`cihub api-key create --name <label> --scope inference\`.`,
      };
}

/**
 * The inference access guard: admitted by origin, else by an inference key. Refusals are in
 * OpenAI's shape with OpenAI's codes on every route, the native ones included, as the reference
 * asks ("What guards what"); the Ollama client prints that object as "[object Object]", and an
 * Ollama app outside the machine reads the reason only from the raw answer (curl -i).
 */
async function guardInference(s: HubServices, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const refusal = inferenceRefusal(s, request.socket.remoteAddress, request.headers);
  if (refusal === null) return;
  refuseUnread(request, reply);
  reply.hijack();
  writeProxyError(reply.raw, 'openai', 401, refusal.code, refusal.message);
}
