import { api, POOL } from '../api';
import { useDashboard } from '../context';
import type { PeerView } from '../types';
import { ago, containersWords, lastSeenWords, notCandidateWords, peerState, peerTags, staleQueueWords, tierWords } from '../words';
import { removal, type Act, type Flash, type Removal, type Say } from './act';
import { Beside } from './beside';
import { PairingProblem } from './pairing-problem';
import { ChangeButton, useWorking } from './working';

/** What a row's last Disable, Enable or Unpair came to, the words for a refusal of it, and where the row stood in the list. */
export interface RowOutcome {
  readonly peerId: string;
  readonly at: number;
  readonly refused: string;
  readonly outcome: Flash;
}

export function PeerRow({
  p,
  act,
  now,
  self,
  outboundOn,
  said,
  say,
}: {
  p: PeerView;
  act: Act;
  now: number;
  self: string | null;
  outboundOn: boolean;
  said: RowOutcome | null;
  say: (refused: string) => Say;
}) {
  const { readOnly } = useDashboard();
  const st = peerState(p);
  const seen = lastSeenWords(p, now);
  const saidId = `peer-said-${p.id}`;
  const working = useWorking();
  return (
    <li data-testid="paired-hub" data-peer={p.nodeFqdn}>
      <div className="row">
        <span className="mono" title={p.nodeFqdn}>
          {p.nodeFqdn}
        </span>
        <span className={`badge ${st.tone}`} data-testid="peer-status">
          {st.label}
        </span>
        {peerTags(p).map((t) => (
          <span key={t} className="tag">
            {t}
          </span>
        ))}
      </div>
      {st.next !== null && (
        <p className={`small ${st.needsYou ? 'notice bad' : 'muted'}`} data-testid="peer-next">
          {st.next}
        </p>
      )}
      <PairingProblem p={p} />
      <p className="small muted">
        Last seen {ago(p.lastSeenAt, now)} · {queueWords(p, outboundOn)} · {seen === null ? '' : 'as of then: '}
        {tierWords(p)} · engines {p.backends === null ? 'not reported yet' : p.backends.map((b) => b.kind).join(', ') || 'none'}
      </p>
      <p className="small muted" data-testid="peer-containers">
        {containersWords(p.containers)}
      </p>
      {!readOnly && (
        <div className="row">
          {/* Named with the peer: every row has these two buttons, and a screen reader lists them by name. */}
          <ChangeButton
            working={working.has('switch')}
            name={`${p.enabled ? 'Disable' : 'Enable'} ${p.nodeFqdn}`}
            aria-describedby={said !== null ? saidId : undefined}
            onClick={() =>
              void working.run('switch', () =>
                act(
                  () => api('POST', `${POOL}/peers/${p.id}/${p.enabled ? 'disable' : 'enable'}`),
                  p.enabled ? `${p.nodeFqdn} disabled: no work either way until enabled.` : `${p.nodeFqdn} enabled.`,
                  say(p.enabled ? 'Not disabled' : 'Not enabled'),
                ),
              )
            }
          >
            {p.enabled ? 'Disable' : 'Enable'}
          </ChangeButton>
          <ChangeButton
            working={working.has('unpair')}
            className="danger"
            name={`Unpair ${p.nodeFqdn}`}
            aria-describedby={said !== null ? saidId : undefined}
            onClick={() => {
              if (window.confirm(`Unpair ${p.nodeFqdn}? It is told to drop its half too.`))
                void working.run('unpair', () =>
                  act(
                    () => api<Removal>('DELETE', `${POOL}/peers/${p.id}`),
                    removal('unpair', p.nodeFqdn, self, `Unpaired ${p.nodeFqdn}.`),
                    say('Not unpaired'),
                  ),
                );
            }}
          >
            Unpair
          </ChangeButton>
        </div>
      )}
      {said !== null && <Beside id={saidId} outcome={said.outcome} refused={said.refused} testId="peer-said" />}
    </li>
  );
}

/**
 * The queue ranking counts for a peer, as the CLI shows it: not the peer's last self-report, which
 * is never aged and would show a silent or unreachable peer as idle. Status gives it only for a
 * candidate, so in its place the row says why the peer is not one, as Resources does.
 */
function queueWords(p: PeerView, outboundOn: boolean): string {
  const depth = p.queueDepth ?? null;
  if (depth === null) return notCandidateWords(p, outboundOn);
  return `queue ${p.loadReported === false || p.snapshotStale === true ? staleQueueWords(depth) : depth}`;
}
