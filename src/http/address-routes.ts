/**
 * POST /api/inference/pool/peers/probe: is there a Hub at this address, and can it be paired
 * with by address? An operator route: it makes this Hub dial out. Pairing by address is the
 * pair route with `address` instead of `nodeFqdn` (peer-operator-routes.ts hands it here).
 */
import type { FastifyInstance } from 'fastify';
import { HubError } from '../errors.js';
import type { HubServices } from './services.js';
import { unknownFieldsSubject } from './unknown-fields.js';

const PROBE_SHAPE = '{ "address": "ADDRESS" or "ADDRESS:PORT" }';

export function registerAddressRoutes(app: FastifyInstance, s: Pick<HubServices, 'addressPairing'>): void {
  const operator = { config: { access: 'operator' as const } };
  app.post('/api/inference/pool/peers/probe', operator, async (request) => s.addressPairing.probe(probeRequestAddress(request.body)));
}

/**
 * The address a probe body names, refused whole when it holds anything else: a `port` beside the
 * address was dropped without a word, and the probe went to the default ports instead. Nothing is
 * dialled for a body this refuses.
 */
export function probeRequestAddress(body: unknown): unknown {
  if (body === undefined || body === null) return undefined;
  if (typeof body !== 'object' || Array.isArray(body)) throw new HubError('HUB_ERR_BAD_REQUEST', `the body must be a JSON object: ${PROBE_SHAPE}`);
  const unknown = Object.keys(body).filter((k) => k !== 'address');
  if (unknown.length > 0) throw new HubError('HUB_ERR_BAD_REQUEST', `${unknownFieldsSubject(unknown)} not taken here (${PROBE_SHAPE}); nothing was dialled`);
  return (body as { address?: unknown }).address;
}
