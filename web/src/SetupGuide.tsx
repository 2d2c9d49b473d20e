import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { api, POOL } from './api';
import { byShownName, hubName, notSentAdvice, pinProblem, retryPinProblem, scanForHubs, sendPairRequest, type Discovery, type PairOutcome } from './actions';
import type { GuideStep } from './context';
import { checksOf, readTailscaleReport, type ReportRead } from './checks';
import { DirectoryNotes } from './DirectoryNotes';
import type { PoolStatus } from './types';
import { isPaired, isVerified, notToldWords, pairingProblemWords, peerState, plural, tierWords } from './words';

/** While a request waits, the guide reads status this often... */
export const APPROVE_POLL_MS = 3_000;
/** ...for this long, then offers Check again. */
export const APPROVE_POLL_LIMIT_MS = 10 * 60 * 1000;

const STEPS: readonly { id: GuideStep; label: string }[] = [
  { id: 'check', label: 'Check' },
  { id: 'find', label: 'Find' },
  { id: 'connect', label: 'Connect' },
  { id: 'approve', label: 'Approve' },
];

export function SetupGuide({ initialStep, onClose }: { initialStep: GuideStep | null; onClose: () => void }) {
  const [step, setStep] = useState<GuideStep | null>(null);
  const [status, setStatus] = useState<PoolStatus | null>(null);
  const [error, setError] = useState<string | null>(null);
  /** Read on open and on Check again only: each read runs Tailscale's CLI on the host. */
  const [report, setReport] = useState<ReportRead | null>(null);
  const [discovery, setDiscovery] = useState<Discovery | null>(null);
  const [scanning, setScanning] = useState(false);
  const [chosen, setChosen] = useState<readonly string[]>([]);
  const [typed, setTyped] = useState<readonly string[]>([]);
  const [typedName, setTypedName] = useState('');
  const [pin, setPin] = useState('');
  /** Typed in a Connect or Approve row after that Hub refused a PIN: what its Retry sends. */
  const [retryPins, setRetryPins] = useState<Readonly<Record<string, string>>>({});
  /** The PIN each Hub refused: dead there (wrong, expired, spent or replaced), so never sent to it again. */
  const [refusedPins, setRefusedPins] = useState<Readonly<Record<string, string>>>({});
  const [results, setResults] = useState<Readonly<Record<string, PairOutcome | 'sending'>>>({});
  const [sentSinceOpen, setSent] = useState<readonly string[]>([]);
  const [cancelled, setCancelled] = useState<readonly string[]>([]);
  const [notHeard, setNotHeard] = useState<Readonly<Record<string, string>>>({});
  const [pollStartedAt, setPollStartedAt] = useState(() => Date.now());
  const [pollExpired, setPollExpired] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);

  const load = useCallback(async () => {
    try {
      const s = await api<PoolStatus>('GET', `${POOL}/status`);
      setStatus(s);
      setError(null);
      return s;
    } catch (err) {
      setError((err as Error).message);
      return null;
    }
  }, []);

  const check = useCallback(async () => {
    const [s, r] = await Promise.all([load(), readTailscaleReport()]);
    setReport(r);
    return { s, r };
  }, [load]);

  // State is read from the Hub on each open; it never re-sends anything by itself.
  useEffect(() => {
    void check().then(({ s, r }) => {
      if (s === null) return setStep(initialStep ?? 'check');
      if (initialStep !== null) return setStep(initialStep);
      if (s.peers.length > 0) return setStep('approve');
      setStep(checksOf(s, r).every((c) => c.level === 'Ready') ? 'find' : 'check');
    });
  }, [initialStep, check]);

  useEffect(() => {
    heading.current?.focus();
  }, [step]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && onClose();
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onClose]);

  const scan = useCallback(async () => {
    setScanning(true);
    setDiscovery(await scanForHubs());
    setScanning(false);
  }, []);
  // Scans when Find opens and on Rescan; never on a timer.
  useEffect(() => {
    if (step === 'find') void scan();
  }, [step, scan]);

  useEffect(() => {
    if (step !== 'approve') return undefined;
    setPollStartedAt(Date.now());
    setPollExpired(false);
    return undefined;
  }, [step]);
  useEffect(() => {
    if (step !== 'approve' || pollExpired) return undefined;
    const t = setInterval(() => {
      if (Date.now() - pollStartedAt >= APPROVE_POLL_LIMIT_MS) setPollExpired(true);
      else void load();
    }, APPROVE_POLL_MS);
    return () => clearInterval(t);
  }, [step, pollExpired, pollStartedAt, load]);

  /**
   * The PIN a request to `name` carries: the one typed in its row once it refused a PIN,
   * otherwise the Find step's PIN when that Hub was the only one chosen.
   */
  const pinFor = (name: string): string => {
    const r = results[name];
    if (r !== undefined && r !== 'sending' && !r.sent && r.pinRefused) return retryPins[name] ?? '';
    return chosen.length === 1 && chosen[0] === name ? pin : '';
  };

  const send = async (names: readonly string[]) => {
    const pins = Object.fromEntries(names.map((n) => [n, pinFor(n)]));
    setResults((r) => ({ ...r, ...Object.fromEntries(names.map((n) => [n, 'sending' as const])) }));
    setSent((s) => [...new Set([...s, ...names])]);
    setCancelled((c) => c.filter((n) => !names.includes(n)));
    await Promise.all(
      names.map(async (n) => {
        const usePin = pins[n] ?? '';
        const outcome = await sendPairRequest(n, usePin);
        // A PIN works once: a request that carried it spent it, so Pair again and Retry go without it.
        if (outcome.sent && usePin !== '') setPin((p) => (p === usePin ? '' : p));
        // A refused PIN is dead on that Hub; Retry sends only what is typed in its row from now on.
        if (!outcome.sent && outcome.pinRefused && usePin !== '') {
          setRefusedPins((m) => ({ ...m, [n]: usePin }));
          setPin((p) => (p === usePin ? '' : p));
        }
        setRetryPins((m) => ({ ...m, [n]: '' }));
        setResults((r) => ({ ...r, [n]: outcome }));
      }),
    );
    await load();
  };
  const retryBlocked = (name: string): boolean => {
    const r = results[name];
    return r !== undefined && r !== 'sending' && !r.sent && r.pinRefused && retryPinProblem(retryPins[name] ?? '', refusedPins[name]) !== null;
  };
  const newPinField = (name: string) => (
    <NewPinField hub={name} value={retryPins[name] ?? ''} refused={refusedPins[name]} onChange={(v) => setRetryPins((m) => ({ ...m, [name]: v }))} />
  );

  if (step === null) return null;
  const index = STEPS.findIndex((s) => s.id === step);
  const current = STEPS[index]!;
  const found = discovery?.available ? discovery.hubs.filter((h) => h.unverified !== true).map((h) => h.nodeFqdn) : [];
  const shownName = (name: string): string => {
    const h = discovery?.available ? discovery.hubs.find((x) => x.nodeFqdn === name) : undefined;
    return h === undefined ? name : hubName(h);
  };
  const all = [...new Set([...found, ...typed])].sort((a, b) => byShownName(shownName(a), a, shownName(b), b));

  return (
    <div className="overlay">
      <div className="dialog" role="dialog" aria-modal="true" aria-labelledby="guide-title">
        <div className="row">
          <h2 id="guide-title" ref={heading} tabIndex={-1} style={{ margin: 0 }}>
            Set up Hub Pool
          </h2>
          <span className="spacer" />
          <button type="button" onClick={onClose} aria-label="Close the setup guide">
            Close
          </button>
        </div>
        <ol className="steps-wide" aria-label="Steps">
          {STEPS.map((s, i) => (
            <li key={s.id} aria-current={s.id === step ? 'step' : undefined}>
              {i + 1}. {s.label}
            </li>
          ))}
        </ol>
        <div className="steps-phone" data-testid="phone-steps">
          <p style={{ margin: '0 0 0.3rem' }}>
            Step {index + 1} of 4 · {current.label}
          </p>
          <progress max={4} value={index + 1} aria-label={`Step ${index + 1} of 4`} />
        </div>
        {error !== null && <p className="notice bad">Could not read this Hub's pool status: {error}</p>}

        {step === 'check' && status !== null && report !== null && (
          <CheckStep status={status} report={report} reload={check} onContinue={() => setStep('find')} />
        )}

        {step === 'find' && (
          <section aria-labelledby="find-title">
            <h3 id="find-title">Find</h3>
            <p className="small">Choose only Hubs you operate. Nothing is chosen for you.</p>
            <div className="row">
              <button type="button" onClick={() => void scan()} disabled={scanning}>
                {scanning ? 'Scanning…' : 'Rescan'}
              </button>
              <button type="button" disabled={all.length === 0} onClick={() => setChosen(all)}>
                Select all
              </button>
            </div>
            {discovery !== null && !discovery.available && (
              <p className="notice" data-testid="discovery-unavailable">
                {discovery.why}
              </p>
            )}
            {/* A Hub heard only on the LAN cannot be chosen, so it does not hide why no tailnet Hub was found. */}
            {discovery !== null && discovery.available && found.length === 0 && (
              <div className="notice" data-testid="discovery-empty">
                <p style={{ margin: 0 }}>No Hubs found</p>
                {discovery.notHubs.length > 0 && <p className="small">These tailnet devices did not answer as a Hub: {discovery.notHubs.join(', ')}</p>}
                <DirectoryNotes directories={discovery.directories} />
              </div>
            )}
            <div className="cards" style={{ gridTemplateColumns: 'repeat(auto-fill, minmax(min(100%, 320px), 1fr))', margin: '0.75rem 0' }}>
              {all.map((name) => {
                const h = discovery?.available ? discovery.hubs.find((x) => x.nodeFqdn === name) : undefined;
                const id = `choose-${name.replace(/[^a-z0-9]/gi, '-')}`;
                return (
                  <div key={name} className="card" style={{ margin: 0 }}>
                    <div className="switch">
                      <input
                        id={id}
                        type="checkbox"
                        checked={chosen.includes(name)}
                        onChange={(e) => setChosen(e.target.checked ? [...chosen, name] : chosen.filter((c) => c !== name))}
                      />
                      <label htmlFor={id} className="mono" title={name}>
                        {shownName(name)}
                      </label>
                    </div>
                    <div className="row small">
                      {h?.os != null && <span className="tag">{h.os}</span>}
                      {h?.online != null && <span className="tag">{h.online ? 'Online' : 'Offline'}</span>}
                      {h === undefined && <span className="tag">Typed by you</span>}
                    </div>
                  </div>
                );
              })}
            </div>
            {discovery?.available === true &&
              discovery.hubs
                .filter((h) => h.unverified === true)
                .map((h) => (
                  <p key={h.nodeFqdn} className="small">
                    <span className="mono">{h.nodeFqdn}</span> <span className="tag">Unverified</span> heard on the LAN; pair it with cihub pool probe and a
                    PIN.
                  </p>
                ))}
            <form
              className="row"
              style={{ alignItems: 'flex-end' }}
              onSubmit={(e) => {
                e.preventDefault();
                const n = typedName.trim().toLowerCase().replace(/\.$/, '');
                if (n === '') return;
                setTyped((t) => [...new Set([...t, n])]);
                setChosen((c) => [...new Set([...c, n])]);
                setTypedName('');
              }}
            >
              <div className="field">
                <label htmlFor="guide-name">Add a Hub by its tailnet name</label>
                <input
                  id="guide-name"
                  type="text"
                  className="mono"
                  placeholder="hub-b.example-tailnet.ts.net"
                  value={typedName}
                  onChange={(e) => setTypedName(e.target.value)}
                />
              </div>
              <button type="submit" className="field" disabled={typedName.trim() === ''}>
                Add
              </button>
            </form>
            <details>
              <summary>Have a PIN?</summary>
              <div className="field" style={{ marginTop: '0.5rem' }}>
                <label htmlFor="guide-pin">PIN from the other Hub</label>
                <input
                  id="guide-pin"
                  type="text"
                  inputMode="numeric"
                  maxLength={6}
                  autoComplete="off"
                  value={pin}
                  disabled={chosen.length !== 1}
                  onChange={(e) => setPin(e.target.value.replace(/\D/g, ''))}
                  aria-describedby="guide-pin-help"
                  aria-invalid={pinProblem(pin) !== null}
                  style={{ width: '10rem' }}
                />
                <span id="guide-pin-help" className="small muted">
                  {chosen.length !== 1
                    ? 'A PIN works for one Hub at a time: choose exactly one Hub to use it.'
                    : (pinProblem(pin) ?? 'Generate it on the other Hub under Hub Pool → Pairing PIN.')}
                </span>
              </div>
            </details>
            <div className="row" style={{ marginTop: '1rem' }}>
              <button
                type="button"
                className="primary"
                disabled={chosen.length === 0 || (chosen.length === 1 && pinProblem(pin) !== null)}
                onClick={() => {
                  setStep('connect');
                  void send(chosen);
                }}
              >
                {chosen.length === 0 ? 'Choose Hubs' : chosen.length === 1 ? 'Send 1 request' : `Send ${chosen.length} requests`}
              </button>
            </div>
          </section>
        )}

        {step === 'connect' && (
          <section aria-labelledby="connect-title">
            <h3 id="connect-title">Connect</h3>
            <ul className="plain">
              {chosen.map((name) => {
                const r = results[name];
                return (
                  <li key={name} data-testid="connect-result" data-hub={name}>
                    <div className="row">
                      <span className="mono">{name}</span>
                      {r === undefined || r === 'sending' ? (
                        <span className="badge">Sending…</span>
                      ) : r.sent ? (
                        <span className="badge good">Request sent</span>
                      ) : (
                        <span className="badge bad">Not sent</span>
                      )}
                      {r !== undefined && r !== 'sending' && !r.sent && (
                        <button type="button" disabled={retryBlocked(name)} onClick={() => void send([name])}>
                          Retry
                        </button>
                      )}
                    </div>
                    {r !== undefined && r !== 'sending' && !r.sent && (
                      <>
                        <p className="small">{notSentAdvice(r)}</p>
                        <p className="small muted">The Hub said: {r.reason}</p>
                        {r.pinRefused && newPinField(name)}
                      </>
                    )}
                  </li>
                );
              })}
            </ul>
            <div className="row">
              {chosen.some((n) => {
                const r = results[n];
                return r !== undefined && r !== 'sending' && !r.sent;
              }) && (
                <button
                  type="button"
                  disabled={chosen.some(retryBlocked)}
                  onClick={() =>
                    void send(
                      chosen.filter((n) => {
                        const r = results[n];
                        return r !== undefined && r !== 'sending' && !r.sent;
                      }),
                    )
                  }
                >
                  Retry failed requests
                </button>
              )}
              <button type="button" className="primary" disabled={chosen.some((n) => results[n] === 'sending')} onClick={() => setStep('approve')}>
                Continue
              </button>
            </div>
          </section>
        )}

        {step === 'approve' && status !== null && (
          <ApproveStep
            status={status}
            reload={load}
            sentSinceOpen={sentSinceOpen.filter(
              (n) => !cancelled.includes(n) && results[n] !== undefined && results[n] !== 'sending' && (results[n] as PairOutcome).sent,
            )}
            sending={sentSinceOpen.filter((n) => !cancelled.includes(n) && results[n] === 'sending')}
            notSent={sentSinceOpen.flatMap((n) => {
              const r = results[n];
              return !cancelled.includes(n) && r !== undefined && r !== 'sending' && !r.sent ? [{ name: n, outcome: r }] : [];
            })}
            notHeard={notHeard}
            onCancelled={(n) => setCancelled((c) => [...c, n])}
            onNotHeard={(n, why) => setNotHeard((m) => ({ ...m, [n]: why }))}
            pairAgain={(n) => void send([n])}
            retryBlocked={retryBlocked}
            newPinField={newPinField}
            expired={pollExpired}
            checkAgain={() => {
              setPollStartedAt(Date.now());
              setPollExpired(false);
              void load();
            }}
            addAnother={() => {
              setChosen([]);
              setPin('');
              setStep('find');
            }}
            done={onClose}
          />
        )}
      </div>
    </div>
  );
}

function CheckStep({ status, report, reload, onContinue }: { status: PoolStatus; report: ReportRead; reload: () => Promise<unknown>; onContinue: () => void }) {
  const checks = checksOf(status, report);
  const blocked = checks.some((c) => c.level === 'Needs action');
  const warned = checks.some((c) => c.level === 'Warning');
  const [busy, setBusy] = useState(false);
  const [fixFailed, setFixFailed] = useState<string | null>(null);
  return (
    <section aria-labelledby="check-title">
      <h3 id="check-title">Check</h3>
      {fixFailed !== null && (
        <p className="notice bad" role="alert">
          {fixFailed}
        </p>
      )}
      <ul className="plain">
        {checks.map((c) => (
          <li key={c.name} data-testid="check">
            <div className="row">
              <strong>{c.name}</strong>
              <span className={`badge ${c.level === 'Ready' ? 'good' : c.level === 'Warning' ? 'warn' : 'bad'}`}>{c.level}</span>
            </div>
            <p className="small">{c.say}</p>
            {c.command !== undefined && <p className="mono small">{c.command}</p>}
            {c.fix !== undefined &&
              ('href' in c.fix ? (
                <a className="button" href={c.fix.href} target="_blank" rel="noreferrer">
                  {c.fix.label}
                </a>
              ) : (
                <button
                  type="button"
                  disabled={busy}
                  onClick={async () => {
                    const label = c.fix!.label;
                    setBusy(true);
                    setFixFailed(null);
                    try {
                      await (c.fix as { run: () => Promise<unknown> }).run();
                    } catch (err) {
                      setFixFailed(`${label} did not work: ${(err as Error).message}`);
                    } finally {
                      await reload();
                      setBusy(false);
                    }
                  }}
                >
                  {c.fix.label}
                </button>
              ))}
          </li>
        ))}
      </ul>
      <div className="row">
        <button type="button" onClick={() => void reload()}>
          Check again
        </button>
        <button type="button" className="primary" disabled={blocked} onClick={onContinue}>
          {warned && !blocked ? 'Continue anyway' : 'Continue'}
        </button>
      </div>
    </section>
  );
}

interface ApproveProps {
  readonly status: PoolStatus;
  readonly reload: () => Promise<unknown>;
  readonly sentSinceOpen: readonly string[];
  /** Requests sent since the guide opened that are on their way now. */
  readonly sending: readonly string[];
  /** Requests sent since the guide opened whose last send failed, with the Hub's answer. */
  readonly notSent: readonly { readonly name: string; readonly outcome: Extract<PairOutcome, { sent: false }> }[];
  readonly notHeard: Readonly<Record<string, string>>;
  onCancelled(name: string): void;
  onNotHeard(name: string, why: string): void;
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

function ApproveStep(p: ApproveProps) {
  const s = p.status;
  const [message, setMessage] = useState<{ readonly tone: 'bad' | 'warn'; readonly text: string } | null>(null);
  const waiting = s.peers.filter((x) => x.status === 'pending' && x.direction === 'outbound');
  const incoming = s.peers.filter((x) => x.status === 'pending' && x.direction === 'inbound');
  const paired = s.peers.filter(isPaired);
  // Verified once and answering now: an Unreachable Hub stays paired (and verified) but serves nothing.
  const ready = paired.filter((x) => isVerified(x) && x.status === 'connected');
  const gone = p.sentSinceOpen.filter((n) => !s.peers.some((x) => x.nodeFqdn === n));
  const self = s.localNode.nodeFqdn;
  /** Runs a change; `notTold` words an answer whose notified is false (the other Hub still holds its half). */
  const run = async (call: () => Promise<unknown>, notTold?: string) => {
    try {
      const answer = (await call()) as { notified?: boolean } | null | undefined;
      setMessage(notTold !== undefined && answer?.notified === false ? { tone: 'warn', text: notTold } : null);
    } catch (err) {
      setMessage({ tone: 'bad', text: (err as Error).message });
    }
    await p.reload();
  };

  return (
    <section aria-labelledby="approve-title">
      <h3 id="approve-title">Approve</h3>
      {message !== null && (
        <p className={`notice ${message.tone}`} role={message.tone === 'bad' ? 'alert' : 'status'}>
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
                  onClick={() =>
                    void run(
                      async () => {
                        p.onCancelled(x.nodeFqdn);
                        return api('DELETE', `${POOL}/peers/${x.id}`);
                      },
                      notToldWords('cancel', x.nodeFqdn, self),
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
              <span>The request to {name} was not sent.</span>
              <button type="button" disabled={p.retryBlocked(name)} onClick={() => p.pairAgain(name)}>
                Retry
              </button>
            </div>
            <p className="small">{notSentAdvice(outcome)}</p>
            <p className="small muted">The Hub said: {outcome.reason}</p>
            {outcome.pinRefused && p.newPinField(name)}
          </li>
        ))}
        {gone.map((n) => (
          <li key={n} data-testid="guide-gone" className="row">
            <span>The request to {n} is gone.</span>
            <span className="small muted">The other Hub rejected or removed it, or it expired.</span>
            <button type="button" onClick={() => p.pairAgain(n)}>
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
                onClick={() =>
                  void run(async () => {
                    const r = await api<{ callback: 'confirmed' | 'failed'; reason: string | null }>('POST', `${POOL}/peers/${x.id}/approve`);
                    if (r.callback === 'failed') p.onNotHeard(x.nodeFqdn, r.reason ?? 'the callback failed');
                  })
                }
              >
                Approve
              </button>
              <button type="button" onClick={() => void run(() => api('POST', `${POOL}/peers/${x.id}/reject`), notToldWords('reject', x.nodeFqdn, self))}>
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
                {tierWords(x.hardwareTier)} · engines {x.backends === null ? 'not reported yet' : x.backends.map((b) => b.kind).join(', ') || 'none running'} ·{' '}
                {x.backends === null
                  ? '—'
                  : plural(
                      x.backends.reduce((n, b) => n + b.models.length, 0),
                      'model',
                      'models',
                    )}
              </p>
              {missed !== undefined && (
                <p className="small notice bad" data-testid="guide-problem">
                  {x.nodeFqdn} never received your approval ({missed}), so it still waits. Fix its HTTPS and Tailscale Serve setup, cancel the request there,
                  then Unpair here and pair again.
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
                  onClick={() =>
                    void run(
                      async () => {
                        // Removed here, by this operator: not a request the other Hub dropped.
                        p.onCancelled(x.nodeFqdn);
                        return api('DELETE', `${POOL}/peers/${x.id}`);
                      },
                      notToldWords('unpair', x.nodeFqdn, self),
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

/** Where a fresh PIN goes after a Hub refused one: the row's Retry sends what is typed here, never the refused PIN. */
function NewPinField({ hub, value, refused, onChange }: { hub: string; value: string; refused: string | undefined; onChange: (pin: string) => void }) {
  const id = `new-pin-${hub.replace(/[^a-z0-9]/gi, '-')}`;
  const problem = retryPinProblem(value, refused);
  return (
    <div className="field">
      <label htmlFor={id}>New PIN from {hub}</label>
      <input
        id={id}
        type="text"
        inputMode="numeric"
        maxLength={6}
        autoComplete="off"
        value={value}
        onChange={(e) => onChange(e.target.value.replace(/\D/g, ''))}
        aria-describedby={`${id}-help`}
        aria-invalid={problem !== null}
        style={{ width: '10rem' }}
      />
      <span id={`${id}-help`} className={`small ${problem !== null ? '' : 'muted'}`}>
        {problem ?? 'Generate a PIN on that Hub under Hub Pool → Pairing PIN and type it here. Left empty, Retry sends the request without a PIN.'}
      </span>
    </div>
  );
}
