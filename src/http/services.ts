/** What the HTTP layer needs from the rest of the Hub; system.ts builds it. */
import type { ContainerRollup } from '../peers/capabilities.js';
import type { ThroughputAdvert } from '../peers/throughput-advert.js';
import type { Logger } from 'pino';
import type { HubEnv } from '../config/env.js';
import type { SettingsFile } from '../config/settings-file.js';
import type { LocalRoutes } from '../proxy/local-routes.js';
import type { PoolProxy } from '../proxy/pool-proxy.js';
import type { RoutingLog } from '../routing-log/ring.js';
import type { PoolStatus } from '../status/pool-status.js';
import type { WindowHandout } from '../placement/handout.js';
import type { ApiKeyStore } from '../store/api-keys.js';
import type { PoolDirections } from '../config/kill-switch.js';
import type { BackendView } from '../engines/types.js';
import type { PoolPeers } from '../peers/pool-peers.js';
import type { Clock } from '../util/clock.js';
import type { AddressPairing } from '../pairing/pair-by-address.js';
import type { HubMetrics } from '../metrics/hub-metrics.js';
import type { DiscoveryService } from '../discovery/discovery-service.js';
import type { TailscaleReport } from '../tailnet/tailscale-report.js';
import type { PeerClock } from '../peers/peer-clock.js';
import type { HardwareTier } from '../machine/hardware-tier.js';
import type { LocalUnservable } from '../placement/candidates.js';

export interface HubServices {
  readonly env: HubEnv;
  readonly logger: Logger;
  readonly operatorKey: string;
  /** Random per process; GET /api/hub/boot answers it and hub.json records it. */
  readonly bootId: string;
  readonly settings: SettingsFile;
  readonly apiKeys: ApiKeyStore;
  readonly routingLog: RoutingLog;
  readonly proxy: PoolProxy;
  readonly localRoutes: LocalRoutes;
  readonly peers: PoolPeers;
  /** Probing and pairing by LAN or tailnet address. */
  readonly addressPairing: AddressPairing;
  readonly clock: Clock;
  directions(): PoolDirections;
  /** This node's engines as last probed (20 s cache), for status and the capabilities it publishes. */
  localInventory(): BackendView[];
  /** Requests this Hub's proxy has in flight on its own engines. */
  inFlightTotal(): number;
  /** Which of this node's engines withhold which models now, advertised to peers per engine. */
  readonly unservable: LocalUnservable;
  status(): Promise<PoolStatus>;
  /** The context window an app should be handed for a model (GET /api/inference/pool/handout). */
  handout(model: string): WindowHandout;
  /** Prometheus metrics, for GET /metrics. */
  readonly metrics: HubMetrics;
  /** This node's slot statement (inferenceOllamaSlots), advertised as ollamaSlots; null when not stated. */
  readonly ollamaSlots: () => number | null;
  /** This node's throughput bands as it advertises them; null when nothing has been timed. */
  readonly throughputAdvert: () => ThroughputAdvert | null;
  /** This node's GPU-pressure band as advertised (machine/pressure-sampler.ts); null when it has none. */
  readonly gpuPressure: () => number | null;
  /** This node's detected hardware tier (machine/hardware-report.ts); null when not detected. */
  readonly hardwareTier: () => HardwareTier | null;
  /** This Hub's container counts as published to peers (fresh and shared, or null: the key is left out). */
  readonly containersPublished: () => ContainerRollup | null;
  /** Whether the SQLite store is open, for GET /readyz. */
  storeOpen(): boolean;
  /** Unpaired Hubs this Hub can name (an operator's request only: it probes every candidate). */
  readonly discovery: DiscoveryService;
  /** What this Hub knows about its Tailscale, for cihub pool doctor. */
  tailscaleReport(): Promise<TailscaleReport>;
  /** Each paired peer's clock against this one's, for cihub pool doctor. */
  peerClocks(): Promise<PeerClock[]>;
}
