/**
 * Operator routes for peers: list, pair, approve, reject, unpair, enable and disable, the
 * pairing PIN, and identity rotation. Behind the operator key like every operator route.
 */
import { unknownFieldsSubject } from './unknown-fields.js';
import { poolSwitchedOff } from '../config/kill-switch.js';
import type { FastifyInstance } from 'fastify';
import { HubError } from '../errors.js';
import { causeFix, identityUnavailable } from '../identity/identity-fix.js';
import { resolvePeer } from '../peers/resolve-peer.js';
import { peerView } from '../peers/peer-view.js';
import { peerMachineStatus } from '../status/machine-status.js';
import type { HubServices } from './services.js';

export function registerPeerOperatorRoutes(app: FastifyInstance, s: HubServices): void {
  const operator = { config: { access: 'operator' as const } };
  const bodyless = { config: { ...operator.config, body: 'none' as const } };
  const p = s.peers;
  const view = async (id: string) => {
    const row = p.store.get(id);
    if (row === null) return null;
    const ctx = {
      selfName: (await p.self()).nodeFqdn,
      pairing: p.pairing.notesOn(row.id),
      nowMs: s.clock.nowMs(),
      pollSeconds: s.settings.get().poolHealthPollSeconds,
    };
    return peerView(row, p.poller.health(row.id), ctx);
  };
  const refOf = (params: unknown) => resolvePeer(p.store, (params as { ref: string }).ref);

  app.get('/api/inference/pool/peers', operator, async () => {
    const selfName = (await p.self()).nodeFqdn;
    const nowMs = s.clock.nowMs();
    const pollSeconds = s.settings.get().poolHealthPollSeconds;
    return {
      peers: p.store.list().map((row) => {
        const health = p.poller.health(row.id);
        // The band as status shows it: clamped on read, and null from a snapshot too old to trust.
        const facts = health.capabilities === null ? null : { gpuPressure: health.capabilities.gpuPressure, snapshotAtMs: health.capabilitiesAtMs };
        return {
          ...peerView(row, health, { selfName, pairing: p.pairing.notesOn(row.id), nowMs, pollSeconds }),
          gpuPressure: peerMachineStatus(facts, null, nowMs, pollSeconds).gpuPressure,
        };
      }),
    };
  });

  app.post('/api/inference/pool/peers/pair', operator, async (request) => {
    const body = pairRequestBody(request.body);
    if (body.address !== undefined) {
      const { peer } = await s.addressPairing.pair(body.address, body.pin);
      return { peer: await view(peer.id), pinVerified: true };
    }
    const { peer, pinVerified } = await p.pairing.requestPairing(body.nodeFqdn, body.pin);
    s.logger.info({ peer: peer.nodeFqdn, pinVerified }, 'pairing request sent');
    return { peer: await view(peer.id), pinVerified };
  });

  app.post('/api/inference/pool/peers/:ref/approve', bodyless, async (request) => {
    const result = await p.pairing.approve(refOf(request.params));
    return { peer: await view(result.peer.id), callback: result.callback, reason: result.reason };
  });

  app.post('/api/inference/pool/peers/:ref/reject', bodyless, async (request) => {
    const row = refOf(request.params);
    const { notified } = await p.pairing.reject(row);
    return { rejected: row.nodeFqdn, notified };
  });

  app.delete('/api/inference/pool/peers/:ref', bodyless, async (request) => {
    const row = refOf(request.params);
    const { notified } = await p.pairing.unpair(row);
    return { unpaired: row.nodeFqdn, notified };
  });

  for (const [verb, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    app.post(`/api/inference/pool/peers/:ref/${verb}`, bodyless, async (request) => {
      const row = refOf(request.params);
      p.store.update(row.id, { enabled });
      s.logger.info({ peer: row.nodeFqdn, enabled }, enabled ? 'peer enabled' : 'peer disabled');
      return { peer: await view(row.id) };
    });
  }

  app.post('/api/inference/pool/pairing-pin', bodyless, async () => {
    const { disabledBy } = s.directions();
    if (disabledBy !== null) throw poolSwitchedOff(disabledBy, 'it takes no pairing requests, so a PIN would be useless');
    const identity = await p.identity.load({ retryDiskRefusal: true });
    if (!identity.ok) throw identityUnavailable(identity);
    const minted = p.pin.mint();
    s.logger.info({ expiresAt: minted.expiresAt }, 'pairing PIN minted');
    return { ...minted, fingerprint: identity.fingerprint, nodeFqdn: (await p.self()).nodeFqdn };
  });

  app.delete('/api/inference/pool/pairing-pin', bodyless, async () => ({ cancelled: p.pin.cancel() }));

  app.post('/api/inference/pool/identity/rotate', bodyless, async () => {
    // Phase one unpairs every peer, so first make sure phase two can mint: a secret that cannot be
    // read or created would otherwise leave no pairings and no key, and a 500.
    const problem = await p.identity.secretProblem();
    if (problem !== null)
      throw new HubError(
        'HUB_ERR_IDENTITY_SECRET_UNUSABLE',
        `no new identity key can be made: ${problem.reason}. Nothing was changed and every pairing stands. Fix: ${causeFix(problem.cause)}, then rotate again`,
        { details: { identityCause: problem.cause } },
      );
    const { identity: rotated, unpaired, notReached } = await p.pairing.rotateIdentity();
    return {
      nodeUuid: rotated.nodeUuid,
      fingerprint: rotated.ok ? rotated.fingerprint : null,
      identityError: rotated.ok ? null : rotated.error,
      unpaired,
      notReached,
    };
  });
}

/** The fields POST /peers/pair reads: a name and an optional PIN, or an address and a PIN. */
const PAIR_FIELDS: ReadonlySet<string> = new Set(['nodeFqdn', 'pin', 'address']);
const PAIR_SHAPES = 'pair by name with { "nodeFqdn", "pin"? } or by address with { "address", "pin" }';

/**
 * The pair body, refused whole when a field would be dropped. A misspelt PIN (`PIN`, `code`) was
 * dropped without a word and the request went out without one, as a bare name claim the other
 * operator cannot check; a nodeFqdn beside an address was dropped the same way. Nothing is sent
 * for a body this refuses.
 */
export function pairRequestBody(body: unknown): { nodeFqdn?: unknown; pin?: unknown; address?: unknown } {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw new HubError('HUB_ERR_BAD_REQUEST', `the body must be a JSON object: ${PAIR_SHAPES}`);
  const fields = body as Record<string, unknown>;
  const unknown = Object.keys(fields).filter((k) => !PAIR_FIELDS.has(k));
  if (unknown.length > 0) throw new HubError('HUB_ERR_BAD_REQUEST', `${unknownFieldsSubject(unknown)} not taken here (${PAIR_SHAPES}); nothing was sent`);
  if (fields.nodeFqdn !== undefined && fields.address !== undefined)
    throw new HubError('HUB_ERR_BAD_REQUEST', `nodeFqdn and address were both given (${PAIR_SHAPES}); nothing was sent`);
  return fields;
}
