/**
 * GET /api/hub/boot: which process is listening, with no credential. The CLI reads it before it
 * sends the operator key, and sends the key only to a listener that answers the bootId hub.json
 * recorded and, given the CLI's challenge, proves it holds the operator key (auth/boot-proof.ts):
 * a listener that took the port after a crash never sees the key (issue 9, #9), even one that
 * recorded the boot id while the Hub ran. The id is random per process and says nothing else
 * about the Hub; the proof is a one-way function of the key and this one challenge, answered only
 * to a caller on this machine (auth/same-machine.ts).
 */
import type { FastifyInstance } from 'fastify';
import { BOOT_CHALLENGE_HEX_CHARS, BOOT_CHALLENGE_QUERY, bootProof, isBootChallenge } from '../auth/boot-proof.js';
import { fromThisMachine } from '../auth/same-machine.js';
import { HubError } from '../errors.js';
import type { HubServices } from './services.js';

export const HUB_BOOT_PATH = '/api/hub/boot';

export function registerHubBootRoutes(app: FastifyInstance, s: Pick<HubServices, 'bootId' | 'operatorKey'>): void {
  app.get(HUB_BOOT_PATH, { config: { query: [BOOT_CHALLENGE_QUERY] } }, async (request) => {
    const challenge = (request.query as Record<string, unknown>)[BOOT_CHALLENGE_QUERY];
    if (challenge === undefined) return { bootId: s.bootId };
    if (!isBootChallenge(challenge))
      throw new HubError('HUB_ERR_QUERY_INVALID', `${BOOT_CHALLENGE_QUERY} must be given once, as ${BOOT_CHALLENGE_HEX_CHARS} lower-case hex digits`);
    // The proof is an HMAC under the operator key over a message the caller mostly chooses: answered
    // to anyone, it would let a caller test guesses at a short hand-written operator.key offline
    // instead of one request at a time. Only the CLI asks it, from this machine, at hub.json's url.
    if (!fromThisMachine(request.socket, request.headers))
      throw new HubError(
        'HUB_ERR_LOCAL_CALLERS_ONLY',
        `the boot proof is answered only to a caller on this machine, connecting directly (not through a proxy); ask without ${BOOT_CHALLENGE_QUERY} for the boot id alone`,
      );
    return { bootId: s.bootId, proof: bootProof(s.operatorKey, s.bootId, challenge) };
  });
}
