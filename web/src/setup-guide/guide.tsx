import { useCallback, useEffect, useRef, useState } from 'react';
import { api, POOL } from '../api';
import {
  byShownName,
  hubName,
  notSentAdvice,
  notSentDetail,
  notSentTitle,
  pinProblem,
  retryable,
  retryPinProblem,
  scanForHubs,
  sendPairRequest,
  type Discovery,
  type PairOutcome,
} from '../actions';
import type { GuideStep } from '../context';
import { checksOf, readTailscaleReport, type ReportRead } from '../checks';
import { DirectoryNotes } from '../DirectoryNotes';
import { NewRequestsSaid } from '../NewRequestsSaid';
import { SaidOnChange } from '../SaidOnChange';
import type { PoolStatus } from '../types';
import { ApproveStep } from './approve-step';
import { CheckStep } from './check-step';
import { useDialogFocus } from './dialog-focus';
import { NewPinField } from './new-pin-field';

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

/**
 * onChanged: called once each change the guide makes (a pairing request, Approve, Reject, a fix)
 * has been answered, so the page below can read again rather than show the state from before it.
 */
export function SetupGuide({ initialStep, onClose, onChanged }: { initialStep: GuideStep | null; onClose: () => void; onChanged: () => void }) {
  const [step, setStep] = useState<GuideStep | null>(null);
  const [status, setStatus] = useState<PoolStatus | null>(null);
  const [error, setError] = useState<string | null>(null);
  /** When `status` was read: once a read fails, what the guide shows is from then. */
  const [readAt, setReadAt] = useState<number | null>(null);
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
  const [notHeard, setNotHeard] = useState<Readonly<Record<string, string | null>>>({});
  const [pollStartedAt, setPollStartedAt] = useState(() => Date.now());
  const [pollExpired, setPollExpired] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);
  const dialog = useRef<HTMLDivElement>(null);
  useDialogFocus(dialog);

  const load = useCallback(async () => {
    try {
      const s = await api<PoolStatus>('GET', `${POOL}/status`);
      setStatus(s);
      setReadAt(Date.now());
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
   * A PIN is minted by one Hub, and the field is off unless exactly one is chosen: digits kept
   * there while it is off could go, unseen, to whichever Hub is left chosen, a wrong guess that
   * counts against that Hub's PIN. So a choice of other than one Hub empties it.
   */
  const choose = (next: readonly string[]) => {
    setChosen(next);
    if (next.length !== 1) setPin('');
  };

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
    onChanged();
    await load();
  };
  const retryBlocked = (name: string): boolean => {
    const r = results[name];
    return r !== undefined && r !== 'sending' && !r.sent && r.pinRefused && retryPinProblem(retryPins[name] ?? '', refusedPins[name]) !== null;
  };
  const newPinField = (name: string) => (
    <NewPinField hub={name} value={retryPins[name] ?? ''} refused={refusedPins[name]} onChange={(v) => setRetryPins((m) => ({ ...m, [name]: v }))} />
  );

  const index = STEPS.findIndex((s) => s.id === step);
  const current = STEPS[index];
  const found = discovery?.available ? discovery.hubs.filter((h) => h.unverified !== true).map((h) => h.nodeFqdn) : [];
  const shownName = (name: string): string => {
    const h = discovery?.available ? discovery.hubs.find((x) => x.nodeFqdn === name) : undefined;
    return h === undefined ? name : hubName(h);
  };
  // Not sent, and worth sending again: this Hub's own conflict would only be met again.
  const failed = chosen.filter((n) => {
    const r = results[n];
    return r !== undefined && r !== 'sending' && !r.sent && retryable(r);
  });
  const all = [...new Set([...found, ...typed])].sort((a, b) => byShownName(shownName(a), a, shownName(b), b));
  // The Connect rows' badges change from Sending… to their answer with nothing moving focus: said here for a screen reader.
  const connectSaid =
    step !== 'connect'
      ? ''
      : chosen
          .map((n) => {
            const r = results[n];
            if (r === undefined || r === 'sending') return `Sending the request to ${n}…`;
            if (r.sent) return `The request reached ${n}.`;
            return r.unanswered
              ? `This Hub did not answer the request to ${n}; its row says what to look for.`
              : `The request to ${n} did not go through; its row says what to check.`;
          })
          .join(' ');

  return (
    <div className="overlay">
      <div ref={dialog} className="dialog" role="dialog" aria-modal="true" aria-labelledby="guide-title">
        <div className="row">
          <h2 id="guide-title" ref={heading} tabIndex={-1} style={{ margin: 0 }}>
            Set up Hub Pool
          </h2>
          <span className="spacer" />
          <button type="button" onClick={onClose} aria-label="Close the setup guide">
            Close
          </button>
        </div>
        {/*
          Until the Hub's state is read there is no step to show; the dialog stands anyway, since
          the page behind it is already inert and a guide that drew nothing left focus on nothing
          with no way out in sight while status or the Tailscale report was slow.
        */}
        {current === undefined ? (
          <p className="muted" role="status" data-testid="guide-reading">
            Reading this Hub's state…
          </p>
        ) : (
          <>
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
          </>
        )}
        {/* An alert, and dated: the steps below keep the last status read, which with the Hub gone would pass for current. */}
        {error !== null && (
          <p className="notice bad" role="alert">
            Could not read this Hub's pool status: {error}.
            {readAt !== null && ` What the guide shows is from the last read, at ${new Date(readAt).toLocaleTimeString()}.`}
            {step === 'approve' && !pollExpired && ` It tries again every ${APPROVE_POLL_MS / 1000} s.`}
          </p>
        )}

        <SaidOnChange said={connectSaid} testId="guide-connect-said" />
        {/* In the dialog, from its first render: the page's own region behind it is out of a screen reader's reach while it is open. */}
        <NewRequestsSaid s={status} testId="guide-arrivals-said" quiet={false} />

        {/* Opened with its Hub already unreadable, the guide has no step to show: the way on is to read again. */}
        {step === 'check' && status === null && error !== null && (
          <div className="row">
            <button type="button" onClick={() => void check()}>
              Check again
            </button>
          </div>
        )}

        {step === 'check' && status !== null && report !== null && (
          <CheckStep status={status} report={report} reload={check} changed={onChanged} onContinue={() => setStep('find')} />
        )}

        {step === 'find' && (
          <section aria-labelledby="find-title">
            <h3 id="find-title">Find</h3>
            <p className="small">Choose only Hubs you operate. Nothing is chosen for you.</p>
            <div className="row">
              <button type="button" onClick={() => void scan()} disabled={scanning}>
                {scanning ? 'Scanning…' : 'Rescan'}
              </button>
              <button type="button" disabled={all.length === 0} onClick={() => choose(all)}>
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
                        onChange={(e) => choose(e.target.checked ? [...chosen, name] : chosen.filter((c) => c !== name))}
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
                choose([...new Set([...chosen, n])]);
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
                    ? 'Each PIN belongs to a single Hub: choose just that one Hub to use it.'
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
                        <span className="badge bad">{notSentTitle(r)}</span>
                      )}
                      {r !== undefined && r !== 'sending' && !r.sent && retryable(r) && (
                        <button type="button" aria-label={`Retry ${name}`} disabled={retryBlocked(name)} onClick={() => void send([name])}>
                          Retry
                        </button>
                      )}
                    </div>
                    {r !== undefined && r !== 'sending' && !r.sent && (
                      <>
                        <p className="small">{notSentAdvice(r)}</p>
                        <p className="small muted">{notSentDetail(r)}</p>
                        {r.pinRefused && newPinField(name)}
                      </>
                    )}
                  </li>
                );
              })}
            </ul>
            <div className="row">
              {failed.length > 0 && (
                <button type="button" disabled={failed.some(retryBlocked)} onClick={() => void send(failed)}>
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
            changed={onChanged}
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
            // A new round of Find: the Hubs chosen or typed for the last one were sent (or dropped) already.
            addAnother={() => {
              choose([]);
              setTyped([]);
              setTypedName('');
              setStep('find');
            }}
            done={onClose}
          />
        )}
      </div>
    </div>
  );
}
