/**
 * GET /api/hub/boot: which process is listening, with no credential. The CLI reads it before it
 * sends the operator key, and sends the key only when the answer matches the bootId hub.json
 * recorded, so a listener that took the port after a crash never sees the key (issue 9, #9).
 * The id is random per process and says nothing else about the Hub.
 */
import type { FastifyInstance } from 'fastify';
import type { HubServices } from './services.js';

export const HUB_BOOT_PATH = '/api/hub/boot';

export function registerHubBootRoutes(app: FastifyInstance, s: Pick<HubServices, 'bootId'>): void {
  app.get(HUB_BOOT_PATH, async () => ({ bootId: s.bootId }));
}
