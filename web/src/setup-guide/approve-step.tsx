import { useEffect, useRef, useState, type ReactNode } from 'react';
import { api, POOL } from '../api';
import { notSentAdvice, notSentDetail, retryable, type PairOutcome } from '../actions';
import { removal, type Flash } from '../hub-pool/act';
import type { ApproveAnswer, PoolStatus } from '../types';
import { useNow } from '../hooks';
import { approveOutcomeWords, distinctModels, isPaired, isVerified, lastSeenWords, pairingProblemWords, peerState, plural, tierWords } from '../words';

interface ApproveProps {
  readonly status: PoolStatus;
  readonly reload: () => Promise<unknown>;
  /** A change made here was answered: the page below reads again. */
  changed(): void;
  readonly sentSinceOpen: readonly string[];
  /** Requests sent since the guide opened that are on their way now. */
  readonly sending: readonly string[];
  /** Requests sent since the guide opened whose last send failed, with the Hub's answer. */
  readonly notSent: readonly { readonly name: string; readonly outcome: Extract<PairOutcome, { sent: false }> }[];
  /** Hubs whose approval here never reached them, with why (the Hub's words; null when it gave none). */
  readonly notHeard: Readonly<Record<string, string | null>>;
  onCancelled(name: string): void;
  onNotHeard(name: string, why: string | null): void;
  pairAgain(name: string): void;
  /** Whether the PIN typed in a not-sent row stops its Retry. */
  retryBlocked(name: string): boolean;
  /** The field for a fresh PIN, shown in the row of a Hub that refused one. */
  newPinField(name: string): ReactNode;
  readonly expired: boolean;
  checkAgain(): void;
  addAnother(): void;
  done(): void;
}

export function ApproveStep(p: ApproveProps) {
  const s = p.status;
  const now = useNow(5_000);
  const [message, setMessage] = useState<Flash>(null);
  const said = useRef<HTMLParagraphElement>(null);
  const refused = useRef<HTMLParagraphElement>(null);
  // Approve, Reject, Cancel request and Unpair each take their own button away with its row, which
  // leaves a keyboard user's focus on the page itself: it goes to the sentence saying what happened.
  useEffect(() => {
    if (message === null) return;
    if (document.activeElement === null || document.activeElement === document.body) (message.tone === 'bad' ? refused : said).current?.focus();
  }, [message]);
  const waiting = s.peers.filter((x) => x.status === 'pending' && x.direction === 'outbound');
  const incoming = s.peers.filter((x) => x.status === 'pending' && x.direction === 'inbound');
  const paired = s.peers.filter(isPaired);
  // Verified once and answering now: an Unreachable Hub stays paired (and verified) but serves nothing.
  const ready = paired.filter((x) => isVerified(x) && x.status === 'connected');
  const gone = p.sentSinceOpen.filter((n) => !s.peers.some((x) => x.nodeFqdn === n));
  const self = s.localNode.nodeFqdn;
  /** Runs a change; `done` words its answer. Said once status has been read again, so the row it speaks of has gone by then. */
  const run = async (call: () => Promise<unknown>, done: (answer: unknown) => Flash) => {
    let outcome: Flash;
    try {
      outcome = done(await call());
    } catch (err) {
      outcome = { tone: 'bad', text: (err as Error).message };
    }
    p.changed();
    await p.reload();
    setMessage(outcome);
  };
  const told = message !== null && message.tone !== 'bad';

  return (
    <section aria-labelledby="approve-title">
      <h3 id="approve-title">Approve</h3>
      {/* Present from the start, so a screen reader already follows it when the first outcome is written in. */}
      <p ref={said} tabIndex={-1} role="status" className={told ? `notice ${message.tone}` : 'visually-hidden'} data-testid="guide-approve-said">
        {told ? message.text : ''}
      </p>
      {message?.tone === 'bad' && (
        <p ref={refused} tabIndex={-1} className="notice bad" role="alert" data-testid="guide-approve-refused">
          {message.text}
        </p>
      )}
      {ready.length > 0 && (
        <div className="notice good" data-testid="pool-ready">
          <strong>Your pool is ready</strong>
          <p style={{ margin: '0.3rem 0 0' }}>
            {plural(ready.length, 'connected Hub', 'connected Hubs')}: {ready.map((v) => v.nodeFqdn).join(', ')} · {plural(s.models.length, 'model', 'models')}{' '}
            in the pool
          </p>
        </div>
      )}
      <h4>Waiting for approval</h4>
      {waiting.length === 0 && gone.length === 0 && p.sending.length === 0 && p.notSent.length === 0 ? (
        <p className="small muted">Nothing is waiting.</p>
      ) : null}
      <ul className="plain">
        {waiting.map((x) => {
          const problem = pairingProblemWords(x);
          return (
            <li key={x.id} data-testid="guide-waiting">
              <div className="row">
                <span className="mono">{x.nodeFqdn}</span>
                <span className="small muted">Waiting for the other Hub to approve</span>
                <button
                  type="button"
                  aria-label={`Cancel request to ${x.nodeFqdn}`}
                  onClick={() =>
                    void run(
                      async () => {
                        p.onCancelled(x.nodeFqdn);
                        return api('DELETE', `${POOL}/peers/${x.id}`);
                      },
                      removal('cancel', x.nodeFqdn, self, `Request to ${x.nodeFqdn} cancelled.`),
                    )
                  }
                >
                  Cancel request
                </button>
              </div>
              {problem !== null && (
                <p className="small notice bad" data-testid="guide-problem">
                  {problem}
                </p>
              )}
            </li>
          );
        })}
        {p.sending
          .filter((n) => !waiting.some((x) => x.nodeFqdn === n))
          .map((n) => (
            <li key={n} data-testid="guide-sending" className="row">
              <span>Sending the request to {n}…</span>
            </li>
          ))}
        {p.notSent.map(({ name, outcome }) => (
          <li key={name} data-testid="guide-not-sent">
            <div className="row">
              <span>{outcome.unanswered ? `This Hub did not answer the request to ${name}.` : `The request to ${name} was not sent.`}</span>
              {retryable(outcome) && (
                <button type="button" aria-label={`Retry ${name}`} disabled={p.retryBlocked(name)} onClick={() => p.pairAgain(name)}>
                  Retry
                </button>
              )}
            </div>
            <p className="small">{notSentAdvice(outcome)}</p>
            <p className="small muted">{notSentDetail(outcome)}</p>
            {outcome.pinRefused && p.newPinField(name)}
          </li>
        ))}
        {gone.map((n) => (
          <li key={n} data-testid="guide-gone" className="row">
            <span>The request to {n} is gone.</span>
            <span className="small muted">The other Hub rejected or removed it, or it expired.</span>
            <button type="button" aria-label={`Pair again with ${n}`} onClick={() => p.pairAgain(n)}>
              Pair again
            </button>
          </li>
        ))}
      </ul>
      <h4>Requests from other Hubs</h4>
      {incoming.length === 0 ? <p className="small muted">No requests have arrived here.</p> : null}
      <ul className="plain">
        {incoming.map((x) => (
          <li key={x.id} data-testid="guide-incoming">
            <span className="mono">{x.nodeFqdn}</span>
            <p className="small">
              {x.fingerprint !== null ? (
                <>
                  Key fingerprint: <span className="mono">{x.fingerprint}</span>
                </>
              ) : (
                'No key — this request arrived without a pairing PIN, so the name is only a claim.'
              )}
            </p>
            <div className="row">
              <button
                type="button"
                className="primary"
                aria-label={`Approve ${x.nodeFqdn}`}
                onClick={() =>
                  void run(
                    async () => {
                      const r = await api<ApproveAnswer>('POST', `${POOL}/peers/${x.id}/approve`);
                      if (r.callback === 'failed') p.onNotHeard(x.nodeFqdn, r.reason);
                      return r;
                    },
                    (r) => approveOutcomeWords(x.nodeFqdn, self, r as ApproveAnswer),
                  )
                }
              >
                Approve
              </button>
              <button
                type="button"
                aria-label={`Reject ${x.nodeFqdn}`}
                onClick={() => void run(() => api('POST', `${POOL}/peers/${x.id}/reject`), removal('reject', x.nodeFqdn, self, `Rejected ${x.nodeFqdn}.`))}
              >
                Reject
              </button>
            </div>
          </li>
        ))}
      </ul>
      <h4>Connected Hubs</h4>
      {paired.length === 0 ? <p className="small muted">No Hub is paired yet.</p> : null}
      <div className="cards">
        {paired.map((x) => {
          const st = peerState(x);
          const seen = lastSeenWords(x, now);
          const missed = p.notHeard[x.nodeFqdn];
          // From status, so a guide opened after the approval (or on the other Hub) sees it too.
          const problem = pairingProblemWords(x);
          return (
            <div key={x.id} className="card" style={{ margin: 0 }} data-testid="guide-connected" data-peer={x.nodeFqdn}>
              <div className="row">
                <span className="mono">{x.nodeFqdn}</span>
                <span className={`badge ${st.tone}`}>{st.label}</span>
                {isVerified(x) && <span className="badge good">Verified</span>}
              </div>
              <p className="small">
                {tierWords(x)} · engines {x.backends === null ? 'not reported yet' : x.backends.map((b) => b.kind).join(', ') || 'none running'} ·{' '}
                {x.backends === null ? '—' : plural(distinctModels(x.backends), 'model', 'models')}
                {/* Figures from a poll before its checks began failing are said to be, not shown as current. */}
                {seen !== null && ` (${seen})`}
              </p>
              {missed !== undefined && (
                <p className="small notice bad" data-testid="guide-problem">
                  {approveOutcomeWords(x.nodeFqdn, self, { callback: 'failed', reason: missed }).text}
                </p>
              )}
              {missed === undefined && problem !== null && (
                <p className="small notice bad" data-testid="guide-problem">
                  {problem}
                </p>
              )}
              {missed === undefined && problem === null && st.needsYou && (
                <p className="small notice bad" data-testid="guide-problem">
                  {st.next}
                </p>
              )}
              {(missed !== undefined || problem !== null || st.needsYou) && (
                <button
                  type="button"
                  className="danger"
                  aria-label={`Unpair ${x.nodeFqdn}`}
                  onClick={() =>
                    void run(
                      async () => {
                        // Removed here, by this operator: not a request the other Hub dropped.
                        p.onCancelled(x.nodeFqdn);
                        return api('DELETE', `${POOL}/peers/${x.id}`);
                      },
                      removal('unpair', x.nodeFqdn, self, `Unpaired ${x.nodeFqdn}.`),
                    )
                  }
                >
                  Unpair
                </button>
              )}
            </div>
          );
        })}
      </div>
      {p.expired && (
        <p className="notice">
          Stopped checking after 10 minutes.{' '}
          <button type="button" onClick={p.checkAgain}>
            Check again
          </button>
        </p>
      )}
      <div className="row" style={{ marginTop: '1rem' }}>
        <button type="button" onClick={p.addAnother}>
          Add another Hub
        </button>
        <button type="button" className="primary" onClick={p.done}>
          Done
        </button>
      </div>
    </section>
  );
}
