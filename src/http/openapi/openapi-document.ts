/**
 * The OpenAPI 3.1 description of every route this Hub registered, built from the routes
 * themselves (method, path, path parameters, the `access` each declares) and the route
 * catalogue's words. Pure: the server hands in what Fastify's onRoute hook saw.
 */
import { SESSION_COOKIE_PREFIX } from '../../dashboard/cookies.js';
import { ROUTE_CATALOGUE, type OpenAuth, type RouteDoc } from './route-catalogue.js';
import { CSRF_HEADER } from '../../dashboard/session-caller.js';

/** One route as Fastify registered it. */
export interface RegisteredRoute {
  /** One method, or `ALL` for a route registered for every method. */
  readonly method: string;
  /** Fastify's path, with `:param` segments. */
  readonly url: string;
  /** The route's declared access (operator-routes.ts); undefined when it declares none. */
  readonly access: 'operator' | 'observability-read' | undefined;
}

/** OpenAPI's operation keys; `ALL` routes are described under each of these. */
const OPENAPI_METHODS = ['get', 'put', 'post', 'delete', 'options', 'patch', 'trace'] as const;

/** The key a route has in ROUTE_CATALOGUE. */
export const routeKey = (r: Pick<RegisteredRoute, 'method' | 'url'>): string => `${r.method} ${r.url}`;

/**
 * The routes worth describing: HEAD routes Fastify adds beside every GET are left out (a HEAD
 * answers as its GET does, without a body), as is anything registered twice.
 */
export function describedRoutes(routes: readonly RegisteredRoute[]): RegisteredRoute[] {
  const seen = new Set<string>();
  return routes.filter((r) => {
    const key = routeKey(r);
    if (r.method === 'HEAD' || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

const SECURITY_SCHEMES = {
  operatorKey: {
    type: 'http',
    scheme: 'bearer',
    description: `the contents of operator.key in the Hub's data dir; a dashboard session cookie with its ${CSRF_HEADER} header counts the same`,
  },
  qaReadKey: { type: 'http', scheme: 'bearer', description: 'an API key of scope qa:read (cihub api-key create --scope qa:read)' },
  inferenceKey: {
    type: 'http',
    scheme: 'bearer',
    description: 'an API key of scope inference; not needed by a caller on this machine or (unless HUB_INFERENCE_TAILNET_AUTH=require-key) the tailnet',
  },
  peerCredential: {
    type: 'http',
    scheme: 'bearer',
    description: 'another Hub: an Ed25519-signed request (docs/peer-protocol.md), or the bearer token issued at pairing until the peer is seen signing',
  },
  // The name's last part is each Hub's own, and this document is open to anyone: it is told only
  // in a sign-in's Set-Cookie, so no unauthenticated caller gets a value that tells this Hub apart.
  dashboardSession: {
    type: 'apiKey',
    in: 'cookie',
    name: `${SESSION_COOKIE_PREFIX}<hub>`,
    description: "the dashboard's session cookie; <hub> stands for this Hub's own part of the name, which a sign-in's Set-Cookie gives",
  },
} as const;

function security(route: RegisteredRoute, doc: RouteDoc): Record<string, string[]>[] {
  if (route.access === 'operator') return [{ operatorKey: [] }];
  if (route.access === 'observability-read') return [{ operatorKey: [] }, { qaReadKey: [] }];
  const auth: OpenAuth = doc.auth ?? 'none';
  switch (auth) {
    case 'none':
      return [];
    case 'inference':
      // {} first: admitted without a credential when the caller is inside.
      return [{}, { inferenceKey: [] }];
    case 'peer':
      return [{ peerCredential: [] }];
    case 'session':
      return [{ dashboardSession: [] }];
  }
}

/** Fastify's path as OpenAPI writes it: `:name` and a trailing `*` become `{name}` path parameters. */
export function openApiPath(url: string, wildcard: string | undefined): { path: string; params: string[] } {
  const params: string[] = [];
  const path = url.replace(/:([A-Za-z0-9_]+)|\*$/g, (_m, name: string | undefined) => {
    const param = name ?? wildcard ?? 'path';
    params.push(param);
    return `{${param}}`;
  });
  return { path, params };
}

function operationId(method: string, url: string): string {
  return `${method.toLowerCase()}${url.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase())}`;
}

export interface OpenApiResult {
  readonly document: Record<string, unknown>;
  /** Registered routes the catalogue has no words for (described by path alone). */
  readonly undocumented: readonly string[];
}

export function openApiDocument(routes: readonly RegisteredRoute[], version: string): OpenApiResult {
  const paths: Record<string, Record<string, unknown>> = {};
  const undocumented: string[] = [];
  for (const route of describedRoutes(routes)) {
    const key = routeKey(route);
    const doc = ROUTE_CATALOGUE[key];
    if (doc === undefined) undocumented.push(key);
    const { path, params } = openApiPath(route.url, doc?.wildcard);
    const item = (paths[path] ??= {});
    const methods = route.method === 'ALL' ? OPENAPI_METHODS : [route.method.toLowerCase()];
    for (const method of methods) {
      item[method] = {
        operationId: operationId(method, route.url),
        summary: doc?.summary ?? key,
        tags: [doc?.tag ?? 'undocumented'],
        security: doc === undefined ? [] : security(route, doc),
        ...(params.length === 0 ? {} : { parameters: params.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })) }),
        ...(doc?.body === undefined ? {} : { requestBody: { required: true, content: { 'application/json': { schema: doc.body } } } }),
        responses: {
          ...(doc?.answer === undefined ? {} : { '200': { description: 'OK', content: { 'application/json': { schema: doc.answer } } } }),
          default: {
            description:
              'Described in docs/api.md. Operator routes answer errors as { "error": { "code", "message" } } (docs/errors.md); the app proxy answers them in the request\'s dialect.',
          },
        },
      };
    }
  }
  return {
    undocumented,
    document: {
      openapi: '3.1.0',
      info: {
        title: 'Hub Pool (cihub)',
        version,
        description: 'Every route this Hub serves. HEAD is answered wherever GET is. Bodies are JSON; docs/api.md describes each in full.',
      },
      tags: ['app proxy', 'operator', 'observability', 'dashboard', 'peer', 'supervisor'].map((name) => ({ name })),
      components: { securitySchemes: SECURITY_SCHEMES },
      paths,
    },
  };
}
