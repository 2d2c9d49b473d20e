/**
 * GET /metrics: the Prometheus text exposition. Readable with the operator key or a qa:read
 * key, like status and the routing log it mirrors (issue 12 names this reach; the spec's list
 * of what qa:read reads predates the route); scrape with `authorization: Bearer <key>`.
 */
import type { FastifyInstance } from 'fastify';
import type { HubServices } from './services.js';

export const METRICS_PATH = '/metrics';

export function registerMetricsRoutes(app: FastifyInstance, s: Pick<HubServices, 'metrics'>): void {
  app.get(METRICS_PATH, { config: { access: 'observability-read' } }, async (_request, reply) => {
    const { contentType, body } = await s.metrics.text();
    void reply.type(contentType).header('cache-control', 'no-store');
    return body;
  });
}
