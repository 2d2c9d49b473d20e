/**
 * POST /api/inference/pool/peers/probe: is there a Hub at this address, and can it be paired
 * with by address? An operator route: it makes this Hub dial out. Pairing by address is the
 * pair route with `address` instead of `nodeFqdn` (peer-operator-routes.ts hands it here).
 */
import type { FastifyInstance } from 'fastify';
import type { HubServices } from './services.js';

export function registerAddressRoutes(app: FastifyInstance, s: Pick<HubServices, 'addressPairing'>): void {
  const operator = { config: { access: 'operator' as const } };
  app.post('/api/inference/pool/peers/probe', operator, async (request) => s.addressPairing.probe((request.body as { address?: unknown } | null)?.address));
}
