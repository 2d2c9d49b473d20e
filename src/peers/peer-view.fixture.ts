/** A connected, signed peer as status shows it, for tests: override what the case is about. */
import type { PeerView } from './peer-view.js';

export function peerViewFixture(extra: Partial<PeerView> = {}): PeerView {
  return {
    id: 'abcdef12-0000-4000-8000-000000000001',
    nodeFqdn: 'hub-b.tail0.ts.net',
    direction: 'outbound',
    status: 'connected',
    enabled: true,
    authMode: 'signed',
    fingerprint: '9999:8888:7777:6666:5555:4444:3333:2222',
    pinVerified: true,
    createdAt: '2026-11-30T11:00:00.000Z',
    expiresAt: null,
    lastSeenAt: '2026-11-30T11:59:48.000Z',
    consecutiveFailures: 0,
    pairingProblem: null,
    probeFailure: null,
    leftAt: null,
    acceptingWork: true,
    inFlightRequests: 0,
    hardwareTier: null,
    backends: [],
    containers: null,
    maxPromptTokens: null,
    maxNumCtx: null,
    unservableModels: [],
    figuresCurrent: true,
    ...extra,
  };
}
