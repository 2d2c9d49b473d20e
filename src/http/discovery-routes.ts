/**
 * Operator routes for finding peers and checking this Hub's Tailscale: the discoverable list
 * (probes every unpaired candidate, so it runs only when an operator asks), what the Hub knows
 * about its Tailscale, and each paired peer's clock (both for cihub pool doctor).
 */
import type { FastifyInstance } from 'fastify';
import type { HubServices } from './services.js';

export function registerDiscoveryRoutes(app: FastifyInstance, s: Pick<HubServices, 'discovery' | 'tailscaleReport' | 'peerClocks'>): void {
  const operator = { config: { access: 'operator' as const } };
  app.get('/api/inference/pool/peers/discoverable', operator, async () => s.discovery.discover());
  app.get('/api/inference/pool/peers/directories', operator, async () => ({ directories: (await s.discovery.directories()).reports }));
  app.get('/api/inference/pool/tailscale', operator, async () => s.tailscaleReport());
  app.get('/api/inference/pool/peers/clocks', operator, async () => ({ peers: await s.peerClocks() }));
}
