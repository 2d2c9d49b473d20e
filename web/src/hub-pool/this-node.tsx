import { refusedChanges, type ReportRead } from '../checks';
import type { PoolStatus } from '../types';
import { Section } from './section';

export function ThisNode({ s, tailscale }: { s: PoolStatus; tailscale: ReportRead | null }) {
  const n = s.localNode;
  const report = tailscale?.ok === true ? tailscale.report : null;
  const ips = report?.daemon.tailscaleIps ?? [];
  const refused = report === null ? null : refusedChanges(report);
  return (
    <Section id="this-node" title="This node">
      <dl>
        <dt>Tailnet name</dt>
        <dd className="mono">{n.nodeFqdn ?? 'None yet: connect Tailscale with MagicDNS on'}</dd>
        <dt>Private VPN (Tailscale)</dt>
        <dd>
          {n.tailscaleConnected
            ? 'Active'
            : n.tailnetSource === 'env'
              ? 'Name set by HUB_NODE_FQDN (Tailscale not read)'
              : `Not connected${report?.daemon.problem ? `: ${report.daemon.problem}` : ''}`}
        </dd>
        {report !== null && report.daemon.connected && (
          <>
            <dt>Tailscale IP</dt>
            <dd className="mono" data-testid="tailscale-ip">
              {ips.length > 0 ? ips.join(', ') : 'Not reported by Tailscale'}
            </dd>
          </>
        )}
        <dt>Key fingerprint</dt>
        <dd className="mono" data-testid="own-fingerprint">
          {n.identity?.fingerprint ?? (n.identity?.identityError != null ? 'None: it could not be made' : 'Created on first use')}
        </dd>
        {n.identity?.identityError != null && (
          <dd className="notice bad" data-testid="identity-error">
            {n.identity.identityError}
            {n.identity.identityFix != null && (
              <>
                <br />
                Fix: {n.identity.identityFix}.
              </>
            )}
          </dd>
        )}
        <dt>Requests in flight here</dt>
        <dd>{n.queueDepth}</dd>
      </dl>
      {tailscale?.ok === false && (
        <p className="notice bad" role="alert">
          Could not read this Hub's Tailscale report: {tailscale.why}. Its Tailscale IP, and whether Tailscale refused the Hub's changes, are not shown.
        </p>
      )}
      {refused !== null && (
        <div className="notice bad" data-testid="tailscale-refused">
          <h3 style={{ marginTop: 0 }}>Tailscale refused the Hub’s changes</h3>
          <p className="small">
            The Hub could not publish itself at https://{report?.nodeFqdn ?? '<its name>'}/ with Tailscale Serve, so other Hubs cannot reach it. Run this once
            on the host; it names the account the Hub runs as ({report?.operator.account}). {refused.then}
          </p>
          <p className="mono small">{refused.command}</p>
        </div>
      )}
      {n.peerOriginsMap.active && (
        <p className="notice warn small">
          HUB_POOL_PEER_ORIGINS is set: peers are dialled at the origins it lists instead of https://&lt;name&gt; (testing and demos only).
        </p>
      )}
    </Section>
  );
}
