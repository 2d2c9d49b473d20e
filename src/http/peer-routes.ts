/**
 * Routes other Hubs call. /pair/request is the one unauthenticated write; everything else
 * passes the peer guard (a signature, or the bearer token this Hub issued). Bodies are read as
 * raw bytes because the signature on /pair/* covers them exactly as sent.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { HubError } from '../errors.js';
import { admitPeer } from '../peer-auth/peer-guard.js';
import { HEADER_REFUSAL } from '../peer-auth/signed-headers.js';
import { publishCapabilities } from '../peers/capabilities.js';
import { LEAVING_PATH } from '../peers/leaving-notice.js';
import type { PeerRow } from '../store/peers.js';
import { resolvePoolDirections } from '../config/kill-switch.js';
import { PROXY_BODY_LIMIT_BYTES } from './proxy-routes.js';
import { ROUTED_ROUTES, PROXY_PREFIX } from '../proxy/route-table.js';
import { writeProxyError } from '../proxy/proxy-errors.js';
import { readStatedStall, STALL_HEADER } from '../proxy/forward-stall.js';
import { parseRequestJson } from '../util/request-json.js';
import { PRE_AUTH_BODY_LIMIT_BYTES, refuseUnread } from './edge.js';
import { toHubError } from './error-mapping.js';
import { belongsToTailnet } from '../tailnet/peer-name.js';
import type { HubServices } from './services.js';
import { limiterSourceIp } from '../pairing/limiter-source.js';

declare module 'fastify' {
  interface FastifyRequest {
    peer?: PeerRow;
    /** How the peer guard admitted the caller. */
    via?: 'signed' | 'bearer';
  }
}

export async function registerPeerRoutes(app: FastifyInstance, s: HubServices): Promise<void> {
  const peers = s.peers;
  // A rename changes the name this Hub dials from then on, so it must pass the rule a pairing
  // request's name passes: on this tailnet, and not this Hub's own name. A signature proves who
  // the peer is, not that the name it now claims is one this Hub should send traffic to.
  const noteRename = async (id: string, name: string): Promise<void> => {
    const self = await peers.self();
    if (name === self.nodeFqdn || !belongsToTailnet(name, self.tailnetSuffix)) {
      s.logger.warn({ newName: name }, "a signed peer presented a name off this tailnet (or this Hub's own); rename not applied");
      return;
    }
    peers.poller.noteRename(id, name);
  };
  const connectedPeer = (request: FastifyRequest): PeerRow => {
    const peer = request.peer!;
    if (peer.status === 'pending') {
      // A peer holding this Hub's token or key only calls once it has approved: half paired, seen from here.
      peers.pairing.noteApprovedThere(peer);
      throw new HubError('HUB_ERR_PEER_UNAUTHORIZED', 'this pairing is not approved yet');
    }
    return peer;
  };
  // 503, never 403: a 403 reads to the sender as "no longer paired" and drops a healthy pairing.
  // Inbound is off whenever the master switch is (config/kill-switch.ts). The row is read again:
  // the guard admitted the peer on its headers, before the body arrived, and a peer unpaired or
  // disabled during a long upload exchanges no work (races audit, 2026-12-07).
  const refuseUnlessAccepting = (admitted: PeerRow): void => {
    const peer = peers.store.get(admitted.id);
    if (peer === null || peer.status === 'pending') throw new HubError('HUB_ERR_PEER_UNAUTHORIZED', 'this Hub does not accept these peer credentials');
    if (!resolvePoolDirections(s.env, s.settings.get()).inbound.enabled || !peer.enabled)
      throw new HubError('HUB_ERR_PEER_NOT_ACCEPTING', 'this Hub is not taking work from peers right now');
  };
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: PROXY_BODY_LIMIT_BYTES }, (_req, body, done) => done(null, body));

    const guard = async (request: FastifyRequest, reply: FastifyReply) => {
      const admission = await admitPeer(
        {
          store: peers.store,
          identity: peers.identity,
          nonces: peers.nonces,
          clock: s.clock,
          requireSigned: () => s.settings.get().poolRequireSignedPeers,
          onRename: (id, name) => void noteRename(id, name).catch((err: unknown) => s.logger.warn({ err }, 'peer rename not recorded')),
        },
        { method: request.method, url: request.url, headers: request.headers, body: rawBody(request) },
      );
      if (!admission.ok) {
        s.logger.debug({ reason: admission.reason, url: request.url }, 'peer request refused');
        refuseUnread(request, reply);
        if (admission.identityMismatch) void reply.header(HEADER_REFUSAL, 'identity-mismatch');
        throw new HubError('HUB_ERR_PEER_UNAUTHORIZED', 'this Hub does not accept these peer credentials');
      }
      request.peer = admission.peer;
      request.via = admission.via;
    };
    const jsonOf = (request: FastifyRequest): unknown => {
      const raw = rawBody(request);
      return raw.length === 0 ? {} : parseRequestJson(raw, { refusePrototypeKeys: true });
    };
    // Authenticate before reading a body (issue 9, defect 5). The /pair/* signatures cover the
    // body, so those routes read theirs first, capped at PRE_AUTH_BODY_LIMIT_BYTES; every other
    // peer route is admitted on its headers alone, then reads up to the proxy's limit.
    const control = { bodyLimit: PRE_AUTH_BODY_LIMIT_BYTES, preHandler: guard };
    const admitted = { onRequest: guard };

    scope.post('/api/inference/pool/pair/request', { bodyLimit: PRE_AUTH_BODY_LIMIT_BYTES }, async (request) =>
      // request.ip is the socket's address unless that is a trusted proxy (HUB_TRUST_PROXY), so an
      // added X-Forwarded-For cannot step around the limiter (issue 9, defect 17); a tunnel on this
      // machine is keyed by name alone (limiter-source.ts).
      peers.pairing.receiveRequest({
        body: jsonOf(request),
        sourceIp: limiterSourceIp({ ip: request.ip, socketAddress: request.socket.remoteAddress, headers: request.headers }, s.env.proxiesNamed),
      }),
    );
    scope.post('/api/inference/pool/pair/confirm', control, async (request) => peers.pairing.receiveConfirm(request.peer!, jsonOf(request)));
    // An upgrade carries an approved pairing over to keys. A request still waiting here gets its
    // keys on /pair/confirm, with that route's checks; taking them here would skip those checks.
    scope.post('/api/inference/pool/pair/upgrade', control, async (request) => peers.pairing.receiveUpgrade(connectedPeer(request), jsonOf(request)));
    scope.post('/api/inference/pool/pair/reject', control, async (request) => {
      peers.pairing.receiveRemoval(request.peer!, 'reject');
      return { removed: true };
    });
    scope.post('/api/inference/pool/pair/unpair', control, async (request) => {
      peers.pairing.receiveRemoval(request.peer!, 'unpair');
      return { removed: true };
    });

    // The leaving notice: acted on only when signed (a bearer token is the legacy carrier), and
    // only for a pairing past its request. A refusal changes nothing.
    scope.post(LEAVING_PATH, control, async (request) => {
      const peer = connectedPeer(request);
      if (request.via !== 'signed') throw new HubError('HUB_ERR_PEER_UNAUTHORIZED', 'a leaving notice must be signed');
      peers.poller.noteLeft(peer);
      return { noted: true };
    });

    scope.get('/api/inference/pool/capabilities', admitted, async (request) => {
      const peer = connectedPeer(request);
      const directions = resolvePoolDirections(s.env, s.settings.get());
      // Pooling off means "I have left the pool": peers mark this Hub unreachable after three strikes.
      if (!directions.enabled) throw new HubError('HUB_ERR_POOL_DISABLED', 'Hub Pool is switched off on this Hub');
      const me = await peers.identity.load();
      return publishCapabilities({
        nodeUuid: me.nodeUuid ?? '',
        publicKey: me.publicKey,
        backends: s.localInventory(),
        inFlightRequests: s.inFlightTotal(),
        acceptingWork: directions.inbound.enabled && peer.enabled,
        maxPromptTokens: s.env.maxPromptTokens ?? s.settings.get().poolMaxPromptTokens,
        maxNumCtx: s.settings.get().inferenceMaxNumCtx,
        unservable: s.unservable,
        ollamaSlots: s.ollamaSlots(),
        throughput: s.throughputAdvert(),
        gpuPressure: s.gpuPressure(),
        hardwareTier: s.hardwareTier(),
        containers: s.containersPublished(),
      });
    });

    scope.post(`${PROXY_PREFIX}/local/api/show`, admitted, async (request, reply) => {
      const peer = connectedPeer(request);
      reply.hijack();
      try {
        refuseUnlessAccepting(peer);
        await s.localRoutes.ollamaShowLocal(rawBody(request), reply.raw);
      } catch (err) {
        const e = toHubError(err);
        writeProxyError(reply.raw, 'ollama', e.status, e.code, e.message);
      }
    });

    // The sender's stall budget, when it states one this Hub can read; an older sender states
    // none, and its forward is served under this Hub's own rule (forward-stall.ts), never refused.
    const senderStall = (request: FastifyRequest, peer: PeerRow): number | null => {
      const stated = request.headers[STALL_HEADER];
      const ms = readStatedStall(stated);
      if (ms === null)
        s.logger.debug(
          { fromPeer: peer.nodeFqdn, header: STALL_HEADER, stated: stated === undefined ? 'absent' : 'unreadable' },
          'a forward states no stall budget this Hub can read: it waits on the sender by its own budget alone',
        );
      return ms;
    };

    for (const route of ROUTED_ROUTES) {
      scope.post(`${PROXY_PREFIX}/local${route.path}`, admitted, async (request, reply) => {
        const peer = connectedPeer(request);
        reply.hijack();
        try {
          refuseUnlessAccepting(peer);
          await s.proxy.serveRouted(route, rawBody(request), reply.raw, {
            accept: request.headers.accept,
            inbound: { fromPeer: peer.nodeFqdn, requestId: headerOf(request, 'x-hub-pool-request-id'), senderStallMs: senderStall(request, peer) },
            // The sender's traceparent names its attempt span: this Hub's row and spans join the same trace.
            trace: { traceparent: request.headers.traceparent, tracestate: request.headers.tracestate },
          });
        } catch (err) {
          const e = toHubError(err);
          writeProxyError(reply.raw, route.dialect, e.status, e.code, e.message);
        }
      });
    }
  });
}

function rawBody(request: FastifyRequest): Buffer {
  return Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
}

function headerOf(request: FastifyRequest, name: string): string | null {
  const v = request.headers[name];
  return typeof v === 'string' ? v : null;
}
