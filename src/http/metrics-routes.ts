/**
 * GET /metrics: the Prometheus text exposition, for the operator key only; scrape with
 * `authorization: Bearer <key>` (Prometheus `authorization` block). The spec lists what a qa:read
 * key reads (status, the routing log and the app routes, "Reading these without an operator
 * credential") and answers it 403 on every other GET; it names no metrics route, so this is one.
 */
import type { FastifyInstance } from 'fastify';
import type { HubServices } from './services.js';

export const METRICS_PATH = '/metrics';

export function registerMetricsRoutes(app: FastifyInstance, s: Pick<HubServices, 'metrics'>): void {
  app.get(METRICS_PATH, { config: { access: 'operator' } }, async (_request, reply) => {
    const { contentType, body } = await s.metrics.text();
    void reply.type(contentType).header('cache-control', 'no-store');
    return body;
  });
}
