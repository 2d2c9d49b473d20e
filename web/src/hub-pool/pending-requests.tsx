import { api, POOL } from '../api';
import { useDashboard } from '../context';
import type { PoolStatus } from '../types';
import { removal, type Act, type Removal } from './act';
import { PairingProblem } from './pairing-problem';
import { Section } from './section';

export function PendingRequests({ s, act }: { s: PoolStatus; act: Act }) {
  const { readOnly } = useDashboard();
  const outbound = s.peers.filter((p) => p.status === 'pending' && p.direction === 'outbound');
  const inbound = s.peers.filter((p) => p.status === 'pending' && p.direction === 'inbound');
  return (
    <Section id="pending" title="Pending requests">
      {outbound.length + inbound.length === 0 && <p className="muted">No requests are waiting.</p>}
      <ul className="plain">
        {outbound.map((p) => (
          <li key={p.id} data-testid="pending-outbound">
            <div className="row">
              <span className="mono">{p.nodeFqdn}</span>
              <span className="badge">Waiting for the other Hub to approve</span>
            </div>
            <PairingProblem p={p} />
            {!readOnly && (
              <button
                type="button"
                aria-label={`Cancel request to ${p.nodeFqdn}`}
                onClick={() =>
                  void act(
                    () => api<Removal>('DELETE', `${POOL}/peers/${p.id}`),
                    removal('cancel', p.nodeFqdn, s.localNode.nodeFqdn, `Request to ${p.nodeFqdn} cancelled.`),
                  )
                }
              >
                Cancel request
              </button>
            )}
          </li>
        ))}
        {inbound.map((p) => (
          <li key={p.id} data-testid="pending-inbound">
            <div className="row">
              <span className="mono">{p.nodeFqdn}</span>
              <span className="badge warn">Wants to join</span>
            </div>
            {p.fingerprint !== null ? (
              <p className="small">
                Key fingerprint: <span className="mono">{p.fingerprint}</span> — compare it with the fingerprint under Pairing PIN on {p.nodeFqdn}.
              </p>
            ) : (
              <p className="small">No key — this request arrived without a pairing PIN, so the name is only a claim.</p>
            )}
            <p className="small muted">Approve the tailnet name you recognise: it is the identity the approval grants.</p>
            {!readOnly && (
              <div className="row">
                <button
                  type="button"
                  className="primary"
                  aria-label={`Approve ${p.nodeFqdn}`}
                  onClick={() =>
                    void act(
                      () => api<{ callback: 'confirmed' | 'failed'; reason: string | null }>('POST', `${POOL}/peers/${p.id}/approve`),
                      (result) => {
                        const r = result as { callback: 'confirmed' | 'failed'; reason: string | null };
                        return r.callback === 'confirmed'
                          ? { tone: 'good', text: `Approved ${p.nodeFqdn}. Both Hubs list each other as paired.` }
                          : {
                              tone: 'bad',
                              text: `Approved here, but ${p.nodeFqdn} never received the approval, so it still waits (half paired). Fix its HTTPS and Tailscale Serve setup, then cancel the request there, unpair it here, and pair again.`,
                              detail: r.reason ?? undefined,
                            };
                      },
                    )
                  }
                >
                  Approve
                </button>
                <button
                  type="button"
                  aria-label={`Reject ${p.nodeFqdn}`}
                  onClick={() =>
                    void act(
                      () => api<Removal>('POST', `${POOL}/peers/${p.id}/reject`),
                      removal('reject', p.nodeFqdn, s.localNode.nodeFqdn, `Rejected ${p.nodeFqdn}.`),
                    )
                  }
                >
                  Reject
                </button>
              </div>
            )}
          </li>
        ))}
      </ul>
    </Section>
  );
}
