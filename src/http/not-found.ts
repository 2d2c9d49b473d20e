/**
 * The answer to a request no route takes (an unknown path, a known one with the wrong method,
 * or a path the router cannot decode), sent before any body is read. Under the proxy's
 * app-facing prefixes it is in the dialect the app speaks, like every other answer there
 * (error-answer.ts); everywhere else it keeps the operator routes' shape.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { HubError } from '../errors.js';
import type { ProxyDialect } from '../engines/types.js';
import { appDialectOf, ROUTED_ROUTES } from '../proxy/route-table.js';
import { answerError } from './error-answer.js';

export function answerNotFound(request: FastifyRequest, reply: FastifyReply): void {
  const dialect = appDialectOf(request.url);
  const routed = dialect === null ? '' : `; the pool takes inference at POST ${ROUTED_BY_DIALECT[dialect]}`;
  answerError(request, reply, new HubError('HUB_ERR_NOT_FOUND', `no route ${request.method} ${request.url.split('?')[0]} on this Hub${routed}`));
}

/**
 * The routes an app of each dialect sends its inference to, for the 404: an app calling a route
 * the pool does not relay (the Responses or Messages API, a typo) learns which ones it does.
 */
const ROUTED_BY_DIALECT: Readonly<Record<ProxyDialect, string>> = {
  openai: routedPaths('openai'),
  ollama: routedPaths('ollama'),
};

function routedPaths(dialect: ProxyDialect): string {
  return ROUTED_ROUTES.filter((r) => r.dialect === dialect)
    .map((r) => r.path)
    .join(', ');
}
