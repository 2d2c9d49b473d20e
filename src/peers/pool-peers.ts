/** Everything the HTTP layer needs for peers and pairing; system.ts builds it. */
import type { NodeIdentity } from '../identity/node-identity.js';
import type { NonceMemory } from '../peer-auth/verify-signed.js';
import type { PairingPin } from '../pairing/pairing-pin.js';
import type { PairingService } from '../pairing/pairing-service.js';
import type { PeerStore } from '../store/peers.js';
import type { TailnetSelf } from '../tailnet/tailnet-self.js';
import type { TailscaleClient } from '../tailnet/tailscale-client.js';
import type { AdminApiClient } from '../discovery/admin-api.js';
import type { HealthPoller } from './health-poller.js';
import type { PeerClient } from './peer-client.js';

export interface PoolPeers {
  readonly store: PeerStore;
  readonly identity: NodeIdentity;
  readonly pairing: PairingService;
  readonly poller: HealthPoller;
  readonly pin: PairingPin;
  readonly nonces: NonceMemory;
  readonly client: PeerClient;
  readonly self: () => Promise<TailnetSelf>;
  /** The development dial map (HUB_POOL_PEER_ORIGINS); empty in production. */
  readonly origins: ReadonlyMap<string, string>;
  /** The local Tailscale daemon through its CLI (status cached 30 s). */
  readonly tailscale: TailscaleClient;
  /** The Tailscale Admin API; null without TAILSCALE_OAUTH_CLIENT_ID / _SECRET. */
  readonly adminApi: AdminApiClient | null;
}
