/**
 * Operator routes: settings, status, the routing log, API keys and /identify. Every route
 * declares who may call it; the guard reads that declaration and nothing else.
 */
import { unknownFieldsSubject } from './unknown-fields.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { decideAccess, identifyCaller, type RouteAccess } from '../auth/operator-credential.js';
import { HubError } from '../errors.js';
import { API_KEY_SCOPES, MAX_KEY_NAME_LENGTH, type ApiKeyScope } from '../store/api-keys.js';
import { parseSince } from '../routing-log/ring.js';
import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT } from '../routing-log/cursor.js';
import { refuseUnread } from './edge.js';
import { MAX_MODEL_NAME_LENGTH } from '../engines/model-name.js';
import { parseBody } from './body-schema.js';
import { METRICS_PATH } from './metrics-routes.js';
import type { HubServices } from './services.js';
import { echoValue } from '../util/echo.js';

/** Pool protocol version /identify advertises. */
export const POOL_PROTOCOL_VERSION = 2;

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: RouteAccess;
  }
}

/** The refusal names every route a qa:read credential reads: status and the routing log below, and /metrics (issue 12). */
const QA_READ_REACH = `a qa:read key, or a dashboard session signed in with one, may read only GET /api/inference/pool/status, GET /api/inference/pool/routing-log and GET ${METRICS_PATH}`;

export function registerOperatorRoutes(app: FastifyInstance, s: HubServices): void {
  // onRequest, not preHandler: the caller is known before a byte of its body is read.
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const access = request.routeOptions.config.access;
    if (access === undefined) return;
    const caller = request.sessionCaller ?? identifyCaller(request.headers.authorization, request.method, s.operatorKey, (k) => s.apiKeys.lookup(k));
    const verdict = decideAccess(caller, access);
    if (!verdict.allowed) {
      refuseUnread(request, reply);
      throw verdict.code === 'AUTH_ERROR_QA_READ_KEY_ROUTE_NOT_ALLOWED'
        ? new HubError(verdict.code, QA_READ_REACH)
        : new HubError(verdict.code, 'this route needs the operator key (Authorization: Bearer <contents of operator.key in the data dir>)');
    }
  });

  const operator = { config: { access: 'operator' as const } };
  const observability = { config: { access: 'observability-read' as const } };
  const bodyless = { config: { ...operator.config, body: 'none' as const } };

  app.get('/api/inference/pool/identify', async () => ({ isCiHub: true, poolProtocol: POOL_PROTOCOL_VERSION }));

  app.get('/api/inference/pool/status', observability, async () => s.status());

  app.get('/api/inference/pool/routing-log', { config: { ...observability.config, query: ['limit', 'since'] } }, async (request) => {
    const query = request.query as Record<string, unknown>;
    return s.routingLog.page({ limit: parseLimit(query.limit), ...parseSinceQuery(query.since) });
  });

  // The window an app should be handed for a model; see placement/handout.ts. Operator only: a
  // qa:read key reads status, the routing log and /metrics and nothing else (spec, "Reading these
  // without an operator credential", plus /metrics from issue 12).
  app.get('/api/inference/pool/handout', { config: { ...operator.config, query: ['model'] } }, async (request) => {
    const model = (request.query as Record<string, unknown>).model;
    if (typeof model !== 'string' || model.trim() === '' || model.length > MAX_MODEL_NAME_LENGTH) {
      throw new HubError(
        'HUB_ERR_QUERY_INVALID',
        `model must be a model id of 1 to ${MAX_MODEL_NAME_LENGTH} characters, given once: /api/inference/pool/handout?model=<id>`,
      );
    }
    const handout = s.handout(model);
    if (handout.nodes.length === 0)
      throw new HubError('HUB_ERR_NOT_FOUND', `no pool node serves model "${model}" now, so there is no window to hand out for it`);
    const localCap = s.settings.get().inferenceMaxNumCtx;
    if (localCap !== null && (handout.numCtx === null || handout.numCtx > localCap)) {
      // Not a reload here: placement keeps windows above this node's cap on nodes that can take them.
      s.logger.info(
        { model, handout: handout.numCtx, localCap },
        `handing out a window above this node's context cap (${localCap}): the pool places those requests on nodes whose cap can take it, and this node's engine serves them only on failover`,
      );
    }
    return handout;
  });

  app.get('/api/inference/pool/settings', operator, async () => s.settings.get());
  app.patch('/api/inference/pool/settings', operator, async (request) => {
    const before = s.settings.get();
    const after = s.settings.patch(request.body);
    s.logger.info({ changed: Object.keys(request.body as object) }, 'pool settings changed');
    if (before.poolEnabled !== after.poolEnabled)
      s.logger.info({ poolEnabled: after.poolEnabled }, after.poolEnabled ? 'pooling switched on' : 'pooling switched off');
    return after;
  });

  app.get('/api/hub/api-keys', operator, async () => ({ keys: s.apiKeys.list() }));
  app.post('/api/hub/api-keys', operator, async (request, reply) => {
    const { name, scope } = parseBody(API_KEY_REQUEST, request.body);
    const { record, key } = s.apiKeys.create(name, scope);
    s.logger.info({ id: record.id, scope }, 'api key created');
    reply.code(201);
    return { ...record, key };
  });
  app.delete('/api/hub/api-keys/:id', bodyless, async (request) => {
    const { id } = request.params as { id: string };
    if (!s.apiKeys.revoke(id)) throw new HubError('HUB_ERR_NOT_FOUND', `no live API key has id ${id}`);
    s.logger.info({ id }, 'api key revoked');
    return { revoked: id };
  });
}

function parseLimit(raw: unknown): number {
  if (raw === undefined) return DEFAULT_PAGE_LIMIT;
  const n = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > MAX_PAGE_LIMIT) {
    throw new HubError('HUB_ERR_QUERY_INVALID', `limit must be a whole number from 1 to ${MAX_PAGE_LIMIT}; got ${echoValue(raw)}`);
  }
  return n;
}

function parseSinceQuery(raw: unknown): { since?: string } {
  if (raw === undefined) return {};
  if (typeof raw !== 'string') throw new HubError('HUB_ERR_QUERY_INVALID', 'since must be given once, as an ISO 8601 time with a zone');
  const parsed = parseSince(raw);
  if (!parsed.ok) throw new HubError('HUB_ERR_QUERY_INVALID', parsed.message);
  return { since: parsed.iso };
}

const KEY_NAME_RULE = `name must be 1 to ${MAX_KEY_NAME_LENGTH} printable characters`;

/**
 * Whether a key's name is a label an operator can read back in `cihub api-key list`: 1 to
 * MAX_KEY_NAME_LENGTH characters counted as code points (an emoji is one, not two UTF-16
 * units), none of them a control, format or separator character (a zero-width space listed as a
 * blank name; U+202E turned the rest of the line around), and at least one visible. The
 * zero-width joiner inside an emoji sequence is the one format character kept.
 */
export function readableKeyName(name: string): boolean {
  const length = [...name].length;
  return length >= 1 && length <= MAX_KEY_NAME_LENGTH && !/[\p{Cc}\p{Cs}\p{Zl}\p{Zp}]|(?!\u200d)\p{Cf}/u.test(name) && /[\p{L}\p{N}\p{P}\p{S}]/u.test(name);
}

const API_KEY_SHAPE = 'the body must be a JSON object: { "name": "<label>", "scope": "inference" | "qa:read" }';

/** POST /api/hub/api-keys: a printable label and one of the scopes, and nothing else. */
export const API_KEY_REQUEST = z
  .object(
    {
      name: z.string({ message: KEY_NAME_RULE }).trim().refine(readableKeyName, KEY_NAME_RULE),
      scope: z.unknown().transform((v, ctx): ApiKeyScope => {
        const scope = API_KEY_SCOPES.find((known) => known === v);
        if (scope !== undefined) return scope;
        ctx.addIssue({ code: z.ZodIssueCode.custom, message: `scope must be one of ${API_KEY_SCOPES.join(', ')}; got ${echoValue(v)}` });
        return z.NEVER;
      }),
    },
    {
      // A field the key has no room for (an expiry, a second scope) was dropped without a word, and
      // the key minted as if it had not been asked: it is refused, naming the field.
      errorMap: (issue) => ({
        message: issue.code === 'unrecognized_keys' ? `${unknownFieldsSubject(issue.keys)} not taken here: a key has a name and a scope only` : API_KEY_SHAPE,
      }),
    },
  )
  .strict();
