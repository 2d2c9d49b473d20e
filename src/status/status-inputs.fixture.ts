/** Status inputs for tests that build a status document and read it as the CLI does. */
import { resolvePoolDirections } from '../config/kill-switch.js';
import { DEFAULT_SETTINGS } from '../config/settings-schema.js';
import type { StatusInputs } from './pool-status.js';

/**
 * A Hub with every switch on, default settings, no engines, peers, identity or pairing PIN, named
 * hub-a.tail0.ts.net by a connected Tailscale; a test overrides what it is about.
 */
export function statusInputs(extra: Partial<StatusInputs> = {}): StatusInputs {
  return {
    directions: resolvePoolDirections({ userDisabled: false, outboundDisabled: false, inboundDisabled: false }, DEFAULT_SETTINGS),
    settings: DEFAULT_SETTINGS,
    envMaxPromptTokens: null,
    backends: [],
    inFlight: () => 0,
    peers: [],
    tailnet: { nodeFqdn: 'hub-a.tail0.ts.net', tailnetSuffix: 'tail0.ts.net', tailscaleConnected: true, source: 'tailscale', tailnetName: 'alice@example.com' },
    identity: null,
    pairingPin: { active: false, expiresAt: null, expiresInMs: null },
    peerOrigins: new Map(),
    tailscaleAdminApiConfigured: false,
    ...extra,
  };
}
