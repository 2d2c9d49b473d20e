import { api, POOL } from '../api';
import { useDashboard } from '../context';
import type { ApproveAnswer, PoolStatus } from '../types';
import { approveOutcomeWords } from '../words';
import { useState } from 'react';
import { removal, type Act, type Removal, type Say } from './act';
import { Beside } from './beside';
import { NewRequestsSaid } from '../NewRequestsSaid';
import { PairingProblem } from './pairing-problem';
import type { RowOutcome } from './peer-row';
import { Section } from './section';
import { ChangeButton, useWorking } from './working';

export function PendingRequests({ s, act }: { s: PoolStatus; act: Act }) {
  const { readOnly, guideOpen } = useDashboard();
  const outbound = s.peers.filter((p) => p.status === 'pending' && p.direction === 'outbound');
  const inbound = s.peers.filter((p) => p.status === 'pending' && p.direction === 'inbound');
  // As in Paired Hubs: the last Approve, Reject or Cancel request is answered in its request's row,
  // and once the request has left the list (which each of them does when it goes through), where the row stood.
  const [said, setSaid] = useState<RowOutcome | null>(null);
  // Approve and Reject of one request share a key: while either is out, neither sends.
  const working = useWorking();
  const waiting = [...outbound, ...inbound];
  const at = (id: string) => waiting.findIndex((p) => p.id === id);
  const say =
    (id: string, refused: string): Say =>
    (outcome) =>
      setSaid({ peerId: id, at: at(id), refused, outcome });
  const saidId = (id: string) => `pending-said-${id}`;
  const note = (id: string) => (said?.peerId === id ? <Beside id={saidId(id)} outcome={said.outcome} refused={said.refused} testId="pending-said" /> : null);
  const describedBy = (id: string) => (said?.peerId === id ? saidId(id) : undefined);
  const gone = said !== null && at(said.peerId) === -1 ? said : null;
  // Placed before the row that followed it; at the end when the rows after it have gone too.
  const goneAt = gone === null ? -1 : Math.min(gone.at, waiting.length);
  const goneNote = gone === null ? null : <Beside id="pending-gone-said" outcome={gone.outcome} refused={gone.refused} testId="pending-said" />;
  return (
    <Section id="pending" title="Pending requests">
      <NewRequestsSaid s={s} testId="pending-arrivals-said" quiet={guideOpen} />
      {waiting.length === 0 && (
        <>
          {goneNote}
          <p className="muted">No requests are waiting.</p>
        </>
      )}
      <ul className="plain">
        {waiting.length > 0 && goneAt === 0 && <li key="pending-gone-said">{goneNote}</li>}
        {outbound.flatMap((p, i) => [
          <li key={p.id} data-testid="pending-outbound">
            <div className="row">
              <span className="mono">{p.nodeFqdn}</span>
              <span className="badge">Waiting for the other Hub to approve</span>
            </div>
            <PairingProblem p={p} />
            {!readOnly && (
              <ChangeButton
                working={working.has(`cancel:${p.id}`)}
                name={`Cancel request to ${p.nodeFqdn}`}
                aria-describedby={describedBy(p.id)}
                onClick={() =>
                  void working.run(`cancel:${p.id}`, () =>
                    act(
                      () => api<Removal>('DELETE', `${POOL}/peers/${p.id}`),
                      removal('cancel', p.nodeFqdn, s.localNode.nodeFqdn, `Request to ${p.nodeFqdn} cancelled.`),
                      say(p.id, 'Not cancelled'),
                    ),
                  )
                }
              >
                Cancel request
              </ChangeButton>
            )}
            {note(p.id)}
          </li>,
          goneAt === i + 1 ? <li key="pending-gone-said">{goneNote}</li> : null,
        ])}
        {inbound.flatMap((p, i) => [
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
                <ChangeButton
                  working={working.has(`decide:${p.id}`)}
                  className="primary"
                  name={`Approve ${p.nodeFqdn}`}
                  aria-describedby={describedBy(p.id)}
                  onClick={() =>
                    void working.run(`decide:${p.id}`, () =>
                      act(
                        () => api<ApproveAnswer>('POST', `${POOL}/peers/${p.id}/approve`),
                        (result) => approveOutcomeWords(p.nodeFqdn, s.localNode.nodeFqdn, result as ApproveAnswer),
                        say(p.id, 'Not approved'),
                      ),
                    )
                  }
                >
                  Approve
                </ChangeButton>
                <ChangeButton
                  working={working.has(`decide:${p.id}`)}
                  name={`Reject ${p.nodeFqdn}`}
                  aria-describedby={describedBy(p.id)}
                  onClick={() =>
                    void working.run(`decide:${p.id}`, () =>
                      act(
                        () => api<Removal>('POST', `${POOL}/peers/${p.id}/reject`),
                        removal('reject', p.nodeFqdn, s.localNode.nodeFqdn, `Rejected ${p.nodeFqdn}.`),
                        say(p.id, 'Not rejected'),
                      ),
                    )
                  }
                >
                  Reject
                </ChangeButton>
              </div>
            )}
            {note(p.id)}
          </li>,
          goneAt === outbound.length + i + 1 ? <li key="pending-gone-said">{goneNote}</li> : null,
        ])}
      </ul>
    </Section>
  );
}
