/**
 * GET /api/inference/pool/openapi.json: the OpenAPI description of every route this Hub
 * registered. Routes are collected as Fastify registers them (its onRoute hook, added before
 * any route), and the document is built once, at the first request, when all are in.
 */
import type { FastifyInstance } from 'fastify';
import { PROXY_PREFIX } from '../proxy/route-table.js';
import { POOL_PROTOCOL_VERSION } from './operator-routes.js';
import { openApiDocument, type RegisteredRoute } from './openapi/openapi-document.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route as registered, in order (recordRoutes). */
    readonly registeredRoutes: readonly RegisteredRoute[];
  }
}

export const OPENAPI_PATH = `${PROXY_PREFIX}/openapi.json`;

/** Starts recording routes; call before any route is registered. Returns the live list. */
export function recordRoutes(app: FastifyInstance): readonly RegisteredRoute[] {
  const routes: RegisteredRoute[] = [];
  app.addHook('onRoute', (options) => {
    const methods = Array.isArray(options.method) ? options.method : [options.method];
    const access = (options.config as { access?: RegisteredRoute['access'] } | undefined)?.access;
    // A route registered for every method (app.all) is one route: ALL.
    if (methods.length > 2) routes.push({ method: 'ALL', url: options.url, access });
    else for (const method of methods) routes.push({ method: String(method).toUpperCase(), url: options.url, access });
  });
  return routes;
}

export function registerOpenApiRoutes(app: FastifyInstance, routes: readonly RegisteredRoute[]): void {
  let document: Record<string, unknown> | null = null;
  // Versioned by the pool protocol, not the build: the document is served to anyone, and an open
  // endpoint says no more than the protocol version (spec, "What /identify no longer says").
  app.get(OPENAPI_PATH, async () => (document ??= openApiDocument(routes, `pool protocol ${POOL_PROTOCOL_VERSION}`).document));
}
