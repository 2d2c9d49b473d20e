/**
 * Everything this Hub knows about its Tailscale, in one record for cihub pool doctor and the
 * operator API (GET /api/inference/pool/tailscale): the daemon's state, whether Serve publishes
 * the Hub, HTTPS certificates, operator permission, and the last publish attempt. The
 * certificate verdict is a pure function of the daemon's status.
 */
import type { TailnetSelf } from './tailnet-self.js';
import type { OperatorState, PublishOutcome, ServeState, TailscaleClient } from './tailscale-client.js';
import type { TailscaleState } from './tailscale-status.js';

export interface CertificateState {
  /** ok: the daemon can get a certificate for this node's name; missing: it cannot; unknown: it does not say. */
  readonly verdict: 'ok' | 'missing' | 'unknown';
  readonly detail: string;
}

export interface TailscaleReport {
  /** Where this Hub's name comes from: the daemon, the HUB_NODE_FQDN / HUB_TAILNET_SUFFIX stand-ins, or nowhere. */
  readonly nameSource: TailnetSelf['source'];
  readonly nodeFqdn: string | null;
  /** The tailscale executable the Hub runs; null when none is on its PATH. */
  readonly binary: string | null;
  /** The daemon's status without its peer map (peerCount says how many). */
  readonly daemon: Omit<TailscaleState, 'peers'> & { readonly peerCount: number };
  readonly serve: ServeState;
  readonly certificates: CertificateState;
  readonly operator: OperatorState;
  /** This process's last attempt to publish itself with Serve; null before one. */
  readonly lastPublish: PublishOutcome | null;
}

export function certificateState(state: TailscaleState, nodeFqdn: string | null): CertificateState {
  if (!state.connected) return { verdict: 'unknown', detail: state.problem ?? 'Tailscale is not connected' };
  if (state.certDomains === null)
    return { verdict: 'unknown', detail: 'this Tailscale does not report which names it can get certificates for (update Tailscale)' };
  if (nodeFqdn !== null && state.certDomains.includes(nodeFqdn)) return { verdict: 'ok', detail: `HTTPS certificates can be issued for ${nodeFqdn}` };
  if (state.certDomains.length === 0) return { verdict: 'missing', detail: 'HTTPS certificates are off for this tailnet' };
  return { verdict: 'missing', detail: `certificates cover ${state.certDomains.join(', ')}, not ${nodeFqdn ?? "this Hub's name"}` };
}

export async function tailscaleReport(client: TailscaleClient, self: TailnetSelf, binary: string | null, port: number): Promise<TailscaleReport> {
  const state = await client.status();
  const [serve, operator] = await Promise.all([client.serve(self.nodeFqdn ?? state.nodeFqdn, port), client.operator()]);
  const { peers, ...daemon } = state;
  return {
    nameSource: self.source,
    nodeFqdn: self.nodeFqdn,
    binary,
    daemon: { ...daemon, peerCount: peers.length },
    serve,
    certificates: certificateState(state, self.nodeFqdn ?? state.nodeFqdn),
    operator,
    lastPublish: client.lastPublish(),
  };
}
