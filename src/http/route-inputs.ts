/**
 * What an operator route reads besides its path: the query keys it takes, and whether it takes a
 * body at all. A key or a body the route would not read is refused, naming it, rather than
 * dropped: a misspelt filter (`?levl=error`) answered 200 with everything, and `{"ttl": 5}` to
 * the PIN route answered 200 with the usual ten minutes, each reading as honoured.
 *
 * Declared on the route (`config: { query: [...] }`, `config: { body: 'none' }`) and checked once,
 * here, before the handler runs. A route with an access rule that declares no query takes none.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HubError } from '../errors.js';
import { unknownFieldsSubject } from './unknown-fields.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The query keys the route reads; absent on a route with an access rule: none. */
    query?: readonly string[];
    /** 'none' when the route reads no body: one that carries fields is refused. */
    body?: 'none';
  }
}

/** Registers the check for every route; a route without an access rule or a declaration is not judged. */
export function registerRouteInputChecks(app: FastifyInstance): void {
  app.addHook('preValidation', async (request: FastifyRequest) => {
    const config = request.routeOptions.config;
    const taken = config.query ?? (config.access === undefined ? null : []);
    if (taken !== null) {
      const extra = Object.keys((request.query ?? {}) as object).filter((key) => !taken.includes(key));
      if (extra.length > 0)
        throw new HubError(
          'HUB_ERR_QUERY_INVALID',
          `${unknownFieldsSubject(extra)} not taken here (${taken.length === 0 ? 'this route takes no query' : `this route takes ${taken.join(', ')}`})`,
        );
    }
    if (config.body === 'none' && carriesSomething(request.body))
      throw new HubError('HUB_ERR_BAD_REQUEST', 'this route takes no body: send the request without one (an empty JSON object is read as none)');
  });
}

/** An empty object, as some clients send with every POST, is no body. */
function carriesSomething(body: unknown): boolean {
  if (body === undefined || body === null) return false;
  if (typeof body === 'object' && !Array.isArray(body) && !Buffer.isBuffer(body)) return Object.keys(body).length > 0;
  if (typeof body === 'string' || Buffer.isBuffer(body)) return body.length > 0;
  return true;
}
