/**
 * A PairingService over a real store and identity whose calls to the peer wait until the test
 * answers them, so a second operator action can run while the first one's call is out.
 */
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { pino, type Logger } from 'pino';
import { NodeIdentity } from '../identity/node-identity.js';
import type { PeerClient } from '../peers/peer-client.js';
import { openDatabase } from '../store/database.js';
import { PeerStore, type PeerRow } from '../store/peers.js';
import { Background } from '../util/background.js';
import { ManualClock } from '../util/clock.js';
import { PairingPin } from './pairing-pin.js';
import { PAIRING_REQUEST_TTL_MS, PairingService, type PairingDeps } from './pairing-service.js';
import { StrikeLimiter } from './strike-limiter.js';
import { scratchDir } from '../../test/helpers/scratch-dir.js';

export const SELF = 'hub-a.tail0.ts.net';
export const PEER = 'hub-b.tail0.ts.net';

export interface HeldCall {
  readonly path: string;
  readonly peer: PeerRow;
  /** What the call sends (the token and identity of a confirmation, say). */
  readonly body: unknown;
  /** The call's options: its time budget and how it authenticates. */
  readonly options: Parameters<PeerClient['call']>[4];
  answer(result: Awaited<ReturnType<PeerClient['call']>>): void;
}

/** A far Hub's identity claim, as its pairing answers carry it. */
export function farIdentity(): { nodeUuid: string; publicKey: string } {
  const jwk = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' });
  return { nodeUuid: randomUUID(), publicKey: jwk.x! };
}

/**
 * `pollSeconds` is the health poll interval the service reads (it sizes the bearer grace window);
 * `logger` replaces the silent one, for a test that reads what the service logged.
 */
export function heldPairing(opts: { pollSeconds?: number; logger?: Logger } = {}) {
  const clock = new ManualClock();
  const logger = opts.logger ?? pino({ level: 'silent' });
  const dataDir = scratchDir('cihub-pairing-');
  const db = openDatabase(join(dataDir, 'hub.db'));
  const store = new PeerStore(db);
  const identity = new NodeIdentity({ db, dataDir, envSecret: 'test-secret', clock, logger, background: new Background({ logger, clock }) });
  const calls: HeldCall[] = [];
  const waiters: (() => void)[] = [];
  const client = {
    call: (peer: PeerRow, _method: string, path: string, body: unknown, options: Parameters<PeerClient['call']>[4]) =>
      new Promise((resolve) => {
        calls.push({ path, peer, body, options, answer: resolve });
        for (const w of waiters.splice(0)) w();
      }),
  } as unknown as PeerClient;
  const pin = new PairingPin({ clock });
  const deps: PairingDeps = {
    store,
    identity,
    client,
    pin,
    limiter: new StrikeLimiter({ clock }),
    self: async () => ({ nodeFqdn: SELF, tailnetSuffix: 'tail0.ts.net', tailscaleConnected: true, source: 'tailscale' as const }),
    poolOff: () => null,
    requireSigned: () => false,
    pollSeconds: () => opts.pollSeconds ?? 30,
    clock,
    logger,
    onConnected: () => undefined,
  };
  const pairing = new PairingService(deps);
  /** The nth call (the first by default) to the peer whose path ends with `suffix`, once it has been made. */
  const nextCall = async (suffix: string, nth = 1): Promise<HeldCall> => {
    for (;;) {
      const found = calls.filter((c) => c.path.endsWith(suffix))[nth - 1];
      if (found) return found;
      await new Promise<void>((r) => waiters.push(r));
    }
  };
  /** A request waiting in `direction`, as an unanswered pair request leaves it (no PIN, no keys). */
  const pendingRequest = (direction: PeerRow['direction'], ttlMs: number): PeerRow =>
    store.insert({
      nodeFqdn: PEER,
      direction,
      status: 'pending',
      peerNodeUuid: null,
      peerPublicKey: null,
      pinVerified: false,
      issuedTokenHash: null,
      presentTokenSealed: null,
      createdAt: new Date(clock.nowMs()).toISOString(),
      expiresAt: new Date(clock.nowMs() + ttlMs).toISOString(),
    });
  const inboundRequest = (): PeerRow => pendingRequest('inbound', 60_000);
  const outboundRequest = (): PeerRow => pendingRequest('outbound', PAIRING_REQUEST_TTL_MS);
  return { store, identity, pin, pairing, deps, calls, nextCall, inboundRequest, outboundRequest, clock };
}
