import { useEffect, useState, type ReactNode } from 'react';
import { api, POOL } from './api';
import { hubName, notSentAdvice, pinProblem, scanForHubs, sendPairRequest, type Discovery } from './actions';
import { useDashboard } from './context';
import { readTailscaleReport, refusedChanges, type ReportRead } from './checks';
import { DirectoryNotes } from './DirectoryNotes';
import { FirstReadFailed } from './FirstReadFailed';
import { FirstByteChart } from './FirstByteChart';
import { useNow, usePoll, useRoutingLog } from './hooks';
import type { PeerView, PoolStatus, SettingEntry } from './types';
import {
  ago,
  containersWords,
  contextCapWarnings,
  failedWords,
  isPaired,
  ms,
  notCandidateWords,
  notToldWords,
  pairingProblemWords,
  peerState,
  peerTags,
  plural,
  poolBadge,
  rowFailovers,
  rowOutcome,
  rowServedBy,
  tierWords,
} from './words';

/** The page reads status this often (the guide: "The requesting Hub's page refreshes every 15 seconds"). */
export const POOL_PAGE_POLL_MS = 15_000;
/** The Tailscale report runs Tailscale's CLI on the host at every read, so it is read far less often than status. */
export const TAILSCALE_REPORT_POLL_MS = 60_000;
/** Recent routing shows this many of the rows the Hub keeps. */
const RECENT_ROWS = 25;

type Flash = { readonly tone: 'good' | 'warn' | 'bad'; readonly text: string; readonly detail?: string } | null;

/** The answer of Unpair, Reject and Cancel request: whether the other Hub was told. */
interface Removal {
  readonly notified: boolean;
}

export function HubPool() {
  const { readOnly, openGuide } = useDashboard();
  const status = usePoll(() => api<PoolStatus>('GET', `${POOL}/status`), POOL_PAGE_POLL_MS);
  const catalogue = usePoll(() => api<{ settings: SettingEntry[] }>('GET', `${POOL}/settings/catalogue`), POOL_PAGE_POLL_MS, !readOnly);
  // Operator only: a qa:read key reads status and the routing log, not the Tailscale report.
  const tailscale = usePoll(readTailscaleReport, TAILSCALE_REPORT_POLL_MS, !readOnly);
  const [flash, setFlash] = useState<Flash>(null);
  // Typed under Pairing PIN, and sent by both that section's Pair and Discoverable devices' Pair.
  const [otherPin, setOtherPin] = useState('');
  const s = status.data;

  const act: Act = async (run, done) => {
    let outcome: Flash;
    let ok: boolean;
    try {
      const result = await run();
      outcome = typeof done === 'string' ? { tone: 'good', text: done } : done(result);
      ok = true;
    } catch (err) {
      outcome = { tone: 'bad', text: (err as Error).message };
      ok = false;
    }
    // The message waits for the state it reports: a switch said "switched off" while it still
    // showed on until the status came back, and a second click then switched it off again (a CI
    // run of the dashboard-controls browser test caught it under load).
    await Promise.all([status.refresh(), readOnly ? null : catalogue.refresh()]);
    setFlash(outcome);
    return ok;
  };

  if (s === null)
    return status.error === null ? (
      <p className="muted">Loading…</p>
    ) : (
      <FirstReadFailed what="this Hub's pool status" error={status.error} everyMs={POOL_PAGE_POLL_MS} />
    );
  const badge = poolBadge(s);
  const paired = s.peers.filter(isPaired);
  const envOff = s.disabledBy === 'env';

  return (
    <>
      <section className="card" aria-labelledby="pool-title">
        <div className="row">
          <h2 id="pool-title" style={{ margin: 0 }}>
            Hub Pool
          </h2>
          <span className={`badge ${badge.tone}`} data-testid="pool-badge">
            {badge.text}
          </span>
        </div>
        <p className="small muted">{badge.detail}</p>
        {!readOnly && !envOff && (
          <div className="notice">
            {paired.length === 0 ? (
              <div className="row">
                <span>Pair this Hub with another Hub you own.</span>
                <button type="button" className="primary" onClick={() => openGuide()}>
                  Set up Hub Pool
                </button>
              </div>
            ) : (
              <button type="button" onClick={() => openGuide('find')}>
                Add Hubs
              </button>
            )}
          </div>
        )}
        {flash !== null && (
          <div className={`notice ${flash.tone}`} role={flash.tone === 'bad' ? 'alert' : 'status'}>
            {flash.text}
            {flash.detail !== undefined && <div className="small">{flash.detail}</div>}
          </div>
        )}
        {status.error !== null && <p className="notice bad">Could not refresh: {status.error}</p>}
      </section>

      <div className="grid2">
        <ThisNode s={s} tailscale={tailscale.data} />
        <PairingPin s={s} receivedAt={status.receivedAt} act={act} setFlash={setFlash} refresh={status.refresh} otherPin={otherPin} setOtherPin={setOtherPin} />
      </div>
      <DiscoverableDevices s={s} setFlash={setFlash} refresh={status.refresh} otherPin={otherPin} setOtherPin={setOtherPin} />
      <PendingRequests s={s} act={act} />
      <PairedHubs s={s} act={act} />
      <div className="grid2">
        <Controls s={s} catalogue={catalogue.data?.settings ?? null} catalogueError={readOnly ? null : catalogue.error} act={act} />
        <RoutingPins s={s} act={act} />
      </div>
      <div className="grid2">
        <PoolModels s={s} />
        <ContextCaps s={s} />
      </div>
      <RecentRouting />
    </>
  );
}

/** Runs a change, says how it went (a sentence, or one made from the answer), and reads status again. */
type Act = (run: () => Promise<unknown>, done: string | ((result: unknown) => Flash)) => Promise<boolean>;

/** The sentence after Unpair, Reject or Cancel request: `done`, or, when the other Hub was not told, what to do there. */
const removal =
  (verb: 'unpair' | 'reject' | 'cancel', peer: string, self: string | null, done: string) =>
  (result: unknown): Flash =>
    (result as Removal | null)?.notified === false ? { tone: 'warn', text: notToldWords(verb, peer, self) } : { tone: 'good', text: done };

function Section({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <section className="card" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}

function ThisNode({ s, tailscale }: { s: PoolStatus; tailscale: ReportRead | null }) {
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
        {n.identity?.identityError != null && <dd className="notice bad">{n.identity.identityError}</dd>}
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

interface PinField {
  readonly otherPin: string;
  setOtherPin(pin: string): void;
}

function PairingPin({
  s,
  receivedAt,
  act,
  setFlash,
  refresh,
  otherPin,
  setOtherPin,
}: { s: PoolStatus; receivedAt: number | null; act: Act; setFlash: (f: Flash) => void; refresh: () => Promise<void> } & PinField) {
  const { readOnly } = useDashboard();
  const now = useNow();
  const [minted, setMinted] = useState<{ pin: string; expiresAt: string } | null>(null);
  const [name, setName] = useState('');
  // The status decides whether a PIN is live: one spent by a request, cancelled or replaced from
  // the CLI is gone there, whatever this page minted. The digits show only for the PIN status names.
  // The countdown runs from the time the Hub said was left, from when its answer arrived:
  // expiresAt read by this browser's clock is off by however far the two clocks disagree, and
  // the next status read may be 15 s away when the PIN lapses.
  const deadline = s.pairingPin.expiresInMs === null || receivedAt === null ? null : receivedAt + s.pairingPin.expiresInMs;
  const left = deadline === null ? 0 : Math.max(0, deadline - now);
  const live = s.pairingPin.active && left > 0;
  const shown = minted !== null && live && s.pairingPin.expiresAt === minted.expiresAt ? minted : null;
  const problem = pinProblem(otherPin);
  useEffect(() => {
    if (minted !== null && left === 0) setMinted(null);
  }, [minted, left]);

  const pair = async () => {
    // The last request's outcome would otherwise stand for this one until its answer comes (up to 10 s).
    setFlash(null);
    const outcome = await sendPairRequest(name.trim(), otherPin);
    if (outcome.sent) {
      setFlash({ tone: 'good', text: `Pairing request sent to ${name.trim()}. It is listed under Pending requests until that Hub approves it.` });
      setName('');
      setOtherPin('');
    } else setFlash({ tone: 'bad', text: `Not sent. ${notSentAdvice(outcome)}`, detail: `The Hub said: ${outcome.reason}` });
    await refresh();
  };

  return (
    <Section id="pairing-pin" title="Pairing PIN">
      <p className="small muted">
        A PIN proves the request comes from someone in front of this Hub's screen. It works once, for ten minutes; generating another replaces it, and five
        wrong guesses destroy it.
      </p>
      {shown !== null ? (
        <div>
          <div className="pin-digits mono" data-testid="pin-digits" aria-label={`PIN ${shown.pin.split('').join(' ')}`}>
            {shown.pin}
          </div>
          <p role="timer" aria-live="off">
            Expires in {Math.floor(left / 60000)}:{String(Math.floor((left % 60000) / 1000)).padStart(2, '0')}
          </p>
        </div>
      ) : live ? (
        <p>A PIN is active until {new Date(deadline!).toLocaleTimeString()}. Its digits were shown once, when it was made.</p>
      ) : (
        <p className="muted">No PIN is active.</p>
      )}
      <p className="small">
        This node's key fingerprint: <span className="mono">{s.localNode.identity?.fingerprint ?? '—'}</span>
      </p>
      {!readOnly && (
        <>
          <div className="row">
            <button
              type="button"
              className="primary"
              disabled={!s.enabled}
              onClick={() =>
                void act(async () => {
                  const res = await api<{ pin: string; expiresAt: string }>('POST', `${POOL}/pairing-pin`);
                  // Status first, so the digits never show beside a status that has not seen the PIN yet.
                  await refresh();
                  setMinted({ pin: res.pin, expiresAt: res.expiresAt });
                }, 'PIN generated. Type it on the other Hub within ten minutes.')
              }
            >
              Generate PIN
            </button>
            {live && (
              <button
                type="button"
                onClick={() =>
                  void act(async () => {
                    await api('DELETE', `${POOL}/pairing-pin`);
                    setMinted(null);
                  }, 'PIN cancelled.')
                }
              >
                Cancel PIN
              </button>
            )}
          </div>
          {!s.enabled && <p className="small muted">Hub Pool is off here, so it takes no pairing requests and cannot make a PIN.</p>}
          <h3 style={{ marginTop: '1rem' }}>Send a request</h3>
          <div className="field">
            <label htmlFor="pair-name">Other Hub's tailnet name</label>
            <input
              id="pair-name"
              type="text"
              className="mono"
              placeholder="hub-b.example-tailnet.ts.net"
              value={name}
              onChange={(e) => setName(e.target.value)}
            />
          </div>
          <div className="field">
            <label htmlFor="other-pin">PIN from the other Hub (optional)</label>
            <input
              id="other-pin"
              type="text"
              inputMode="numeric"
              autoComplete="off"
              maxLength={6}
              value={otherPin}
              onChange={(e) => setOtherPin(e.target.value.replace(/\D/g, ''))}
              aria-invalid={problem !== null}
              aria-describedby="other-pin-help"
            />
            <span id="other-pin-help" className={`small ${problem !== null ? '' : 'muted'}`}>
              {problem ?? 'Six digits, made under Pairing PIN on the other Hub. Without one, the request carries only this Hub’s name.'}
            </span>
          </div>
          <button type="button" disabled={name.trim() === '' || problem !== null} onClick={() => void pair()}>
            Pair
          </button>
        </>
      )}
    </Section>
  );
}

function DiscoverableDevices({
  s,
  setFlash,
  refresh,
  otherPin,
  setOtherPin,
}: { s: PoolStatus; setFlash: (f: Flash) => void; refresh: () => Promise<void> } & PinField) {
  const { readOnly } = useDashboard();
  const pinRefused = pinProblem(otherPin) !== null;
  const [scan, setScan] = useState<Discovery | null>(null);
  const [scanning, setScanning] = useState(false);
  const run = async () => {
    setScanning(true);
    setScan(await scanForHubs());
    setScanning(false);
  };
  useEffect(() => {
    if (!readOnly) void run();
  }, [readOnly]);
  if (readOnly) return null;
  // Whatever the scan listed: rows heard on the LAN, or tailnet rows from this machine's own
  // Tailscale, say nothing about the devices only the Admin API would name, so the way to add
  // them stays in view as long as the Hub has no OAuth client, not only beside an empty list.
  const credentialHint = scan?.available === true && !s.tailscaleAdminApiConfigured;
  return (
    <Section id="discoverable" title="Discoverable devices">
      <div className="row">
        <button type="button" onClick={() => void run()} disabled={scanning}>
          {scanning ? 'Scanning…' : 'Rescan'}
        </button>
        <span className="small muted">
          Scans when this page opens and on Rescan, never on a timer: each scan contacts every unpaired device on the tailnet. Pair sends the PIN typed under
          Pairing PIN, if any.
        </span>
      </div>
      {scan === null ? null : !scan.available ? (
        <p className="notice" data-testid="discovery-unavailable">
          {scan.why}
        </p>
      ) : scan.hubs.length === 0 ? (
        <div className="notice" data-testid="discovery-empty">
          <p>No unpaired Hubs found.</p>
          <DirectoryNotes directories={scan.directories} credentialHintShown={credentialHint} />
        </div>
      ) : (
        <ul className="plain">
          {scan.hubs.map((h) => (
            <li key={h.nodeFqdn} className="row">
              <span title={h.nodeFqdn}>{hubName(h)}</span>
              {h.unverified === true ? (
                <span className="tag">Unverified</span>
              ) : (
                <button
                  type="button"
                  disabled={pinRefused}
                  title={pinRefused ? 'The PIN typed under Pairing PIN is not six digits' : undefined}
                  onClick={async () => {
                    // The PIN typed under Pairing PIN goes with it, as with that section's Pair.
                    const withPin = otherPin.trim() !== '';
                    setFlash(null);
                    const o = await sendPairRequest(h.nodeFqdn, otherPin);
                    if (o.sent && withPin) setOtherPin('');
                    setFlash(
                      o.sent
                        ? { tone: 'good', text: `Pairing request sent to ${h.nodeFqdn}${withPin ? ' with the PIN' : ''}.` }
                        : { tone: 'bad', text: `Not sent. ${notSentAdvice(o)}`, detail: `The Hub said: ${o.reason}` },
                    );
                    await refresh();
                  }}
                >
                  Pair
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {credentialHint && (
        <p className="small" data-testid="oauth-hint">
          To list every device on your tailnet, set TAILSCALE_OAUTH_CLIENT_ID and TAILSCALE_OAUTH_CLIENT_SECRET in the Hub's .env.
        </p>
      )}
    </Section>
  );
}

function PendingRequests({ s, act }: { s: PoolStatus; act: Act }) {
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

/** A pairing state that needs an operator on each Hub, with its fix; nothing when there is none. */
function PairingProblem({ p }: { p: PeerView }) {
  const words = pairingProblemWords(p);
  return words === null ? null : (
    <p className="small notice bad" data-testid="pairing-problem">
      {words}
    </p>
  );
}

export function PeerRow({ p, act, now, self, outboundOn }: { p: PeerView; act: Act; now: number; self: string | null; outboundOn: boolean }) {
  const { readOnly } = useDashboard();
  const st = peerState(p);
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
      {st.next !== null && <p className={`small ${st.needsYou ? 'notice bad' : 'muted'}`}>{st.next}</p>}
      <PairingProblem p={p} />
      <p className="small muted">
        Last seen {ago(p.lastSeenAt, now)} · {queueWords(p, outboundOn)} · {tierWords(p.hardwareTier)} · engines{' '}
        {p.backends === null ? 'not reported yet' : p.backends.map((b) => b.kind).join(', ') || 'none'}
      </p>
      <p className="small muted" data-testid="peer-containers">
        {containersWords(p.containers)}
      </p>
      {!readOnly && (
        <div className="row">
          <button
            type="button"
            onClick={() =>
              void act(
                () => api('POST', `${POOL}/peers/${p.id}/${p.enabled ? 'disable' : 'enable'}`),
                p.enabled ? `${p.nodeFqdn} disabled: no work either way until enabled.` : `${p.nodeFqdn} enabled.`,
              )
            }
          >
            {p.enabled ? 'Disable' : 'Enable'}
          </button>
          <button
            type="button"
            className="danger"
            onClick={() => {
              if (window.confirm(`Unpair ${p.nodeFqdn}? It is told to drop its half too.`))
                void act(() => api<Removal>('DELETE', `${POOL}/peers/${p.id}`), removal('unpair', p.nodeFqdn, self, `Unpaired ${p.nodeFqdn}.`));
            }}
          >
            Unpair
          </button>
        </div>
      )}
    </li>
  );
}

function PairedHubs({ s, act }: { s: PoolStatus; act: Act }) {
  const now = useNow();
  const paired = s.peers.filter(isPaired);
  return (
    <Section id="paired" title="Paired Hubs">
      {paired.length === 0 ? (
        <p className="muted">No Hub is paired yet.</p>
      ) : (
        <ul className="plain">
          {paired.map((p) => (
            <PeerRow key={p.id} p={p} act={act} now={now} self={s.localNode.nodeFqdn} outboundOn={s.directions.outbound.enabled} />
          ))}
        </ul>
      )}
      <p className="small muted">
        Refreshes every {POOL_PAGE_POLL_MS / 1000} s. Peers are health-checked every {s.settings.poolHealthPollSeconds} s; three failures in a row mark one
        Unreachable.
      </p>
    </Section>
  );
}

/** The .env flag that forces each pool switch off (spec, kill switches). */
const ENV_FLAGS: Readonly<Record<string, string>> = {
  poolEnabled: 'HUB_POOL_USER_DISABLED',
  poolOutboundEnabled: 'HUB_POOL_OUTBOUND_DISABLED',
  poolInboundEnabled: 'HUB_POOL_INBOUND_DISABLED',
};

/**
 * The .env flag holding a switch off, from status, which every sign-in reads (the settings
 * catalogue is operator-only and can fail to read). Each direction reports its own flag even
 * while Hub Pool is off and status names the master as what holds it off, so the lock shows
 * to every sign-in in that state too.
 */
function envLock(s: PoolStatus, key: string, catalogued: string | null): string | null {
  switch (key) {
    case 'poolEnabled':
      return s.disabledBy === 'env' ? ENV_FLAGS[key]! : null;
    case 'poolOutboundEnabled':
      return s.directions.outbound.envLocked ? ENV_FLAGS[key]! : null;
    case 'poolInboundEnabled':
      return s.directions.inbound.envLocked ? ENV_FLAGS[key]! : null;
    default:
      return catalogued;
  }
}

/**
 * The queue ranking counts for a peer, as the CLI shows it: not the peer's last self-report, which
 * is never aged and would show a silent or unreachable peer as idle. Status gives it only for a
 * candidate, so in its place the row says why the peer is not one, as Resources does.
 */
function queueWords(p: PeerView, outboundOn: boolean): string {
  const depth = p.queueDepth ?? null;
  if (depth === null) return notCandidateWords(p, outboundOn);
  return `queue ${p.snapshotStale === true ? `${depth} (no recent report; counted as mid-load)` : depth}`;
}

const SWITCHES = [
  { key: 'poolEnabled', label: 'Hub Pool' },
  { key: 'poolOutboundEnabled', label: 'Send work to paired Hubs' },
  { key: 'poolInboundEnabled', label: 'Take work from paired Hubs' },
  { key: 'poolLanDiscovery', label: 'Discover Hubs on the LAN (mDNS)' },
] as const;
const NUMBERS = [
  { key: 'poolLocalAffinity', label: 'Local affinity (queued requests)' },
  { key: 'poolHealthPollSeconds', label: 'Health check interval (seconds)' },
  { key: 'poolPrefixAffinityMaxInFlight', label: 'Prefix affinity limit (queued requests; 0 is off)' },
  { key: 'poolPrefixAffinityMargin', label: 'Prefix affinity margin (queued requests)' },
] as const;

function Controls({
  s,
  catalogue,
  catalogueError,
  act,
}: {
  s: PoolStatus;
  catalogue: readonly SettingEntry[] | null;
  catalogueError: string | null;
  act: Act;
}) {
  const { readOnly } = useDashboard();
  const [draft, setDraft] = useState<Record<string, string>>({});
  const entry = (key: string) => catalogue?.find((e) => e.key === key) ?? null;
  return (
    <Section id="controls" title="Controls">
      {catalogueError !== null && (
        <p className="notice bad" role="alert">
          Could not read the settings catalogue: {catalogueError}.{' '}
          {catalogue === null ? 'The ranges and defaults are not shown.' : 'The ranges and defaults are from the last read.'}
        </p>
      )}
      {SWITCHES.map((sw) => {
        const locked = envLock(s, sw.key, entry(sw.key)?.lockedBy ?? null);
        const on = locked !== null ? false : Boolean(s.settings[sw.key]);
        const id = `switch-${sw.key}`;
        return (
          <div key={sw.key}>
            <div className="switch">
              <input
                id={id}
                type="checkbox"
                role="switch"
                checked={on}
                disabled={readOnly || locked !== null}
                aria-describedby={locked !== null ? `${id}-lock` : undefined}
                onChange={(ev) =>
                  void act(() => api('PATCH', `${POOL}/settings`, { [sw.key]: ev.target.checked }), `${sw.label} switched ${ev.target.checked ? 'on' : 'off'}.`)
                }
              />
              <label htmlFor={id}>{sw.label}</label>
            </div>
            {locked !== null && (
              <p id={`${id}-lock`} className="small notice warn">
                Disabled in this Hub's .env ({locked}=true). Remove that line and restart the Hub to use this switch.
              </p>
            )}
          </div>
        );
      })}
      <p className="small muted">
        Discover Hubs on the LAN (mDNS) is off by default. Hubs heard that way are listed as Unverified, with no Pair button: anything on the network can
        announce itself as a Hub.
      </p>
      {NUMBERS.map((n) => {
        const id = `num-${n.key}`;
        const value = draft[n.key] ?? String(s.settings[n.key]);
        const e = entry(n.key);
        return (
          <div key={n.key} className="field">
            <label htmlFor={id}>{n.label}</label>
            <div className="row">
              <input
                id={id}
                type="number"
                value={value}
                disabled={readOnly}
                onChange={(ev) => setDraft({ ...draft, [n.key]: ev.target.value })}
                aria-describedby={`${id}-range`}
                style={{ width: '8rem' }}
              />
              {!readOnly && (
                <button
                  type="button"
                  disabled={value === String(s.settings[n.key]) || value.trim() === ''}
                  onClick={async () => {
                    if (await act(() => api('PATCH', `${POOL}/settings`, { [n.key]: Number(value) }), `${n.label} saved.`))
                      setDraft((d) => Object.fromEntries(Object.entries(d).filter(([k]) => k !== n.key)));
                  }}
                >
                  Save
                </button>
              )}
            </div>
            <span id={`${id}-range`} className="small muted">
              {e !== null ? `${e.range}; default ${String(e.default)}` : ''}
            </span>
            {e?.inert != null && (
              <p className="small notice warn" data-testid={`${n.key}-inert`}>
                {inertText(e.inert)}
              </p>
            )}
          </div>
        );
      })}
      <p className="small muted">Switches apply at once; the number fields need Save. Pairings are kept whichever switch you use.</p>
    </Section>
  );
}

/** Why a setting's value does nothing now, from the catalogue's typed record. */
function inertText(inert: NonNullable<SettingEntry['inert']>): string {
  const base = `Does nothing while ${inert.because} is ${String(inert.becauseValue)}`;
  return inert.reason === 'prefix-affinity-off' ? `${base}: a margin only widens a prefix affinity limit that is on.` : `${base}.`;
}

function RoutingPins({ s, act }: { s: PoolStatus; act: Act }) {
  const { readOnly } = useDashboard();
  const [model, setModel] = useState('');
  const [target, setTarget] = useState('local');
  const targets = ['local', ...s.peers.filter(isPaired).map((p) => p.nodeFqdn)];
  return (
    <Section id="pins" title="Routing pins">
      <p className="small muted">A pin moves a node to the front for a model when it can serve it; it never rules the others out.</p>
      {s.pins.length === 0 ? (
        <p className="muted">No pins.</p>
      ) : (
        <ul className="plain">
          {s.pins.map((p) => (
            <li key={`${p.scope}:${p.model ?? ''}`} className="row">
              <span>{p.scope === 'default' ? 'Every model' : <span className="mono">{p.model}</span>}</span>
              <span>→ {p.targetNode}</span>
              <span className={`badge ${p.targetAvailable ? 'good' : 'warn'}`}>
                {p.targetAvailable ? 'Target available' : 'Target not available now: the pin is idle'}
              </span>
              {!readOnly && (
                <button
                  type="button"
                  onClick={() =>
                    void act(
                      () => api('DELETE', `${POOL}/pins?scope=${p.scope}${p.scope === 'model' ? `&model=${encodeURIComponent(p.model ?? '')}` : ''}`),
                      'Pin removed.',
                    )
                  }
                >
                  Remove
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {!readOnly && (
        <div className="row" style={{ marginTop: '0.5rem', alignItems: 'flex-end' }}>
          <div className="field">
            <label htmlFor="pin-model">Model (empty: every model)</label>
            <input id="pin-model" type="text" className="mono" value={model} onChange={(e) => setModel(e.target.value)} list="pool-models" />
            <datalist id="pool-models">
              {s.models.map((m) => (
                <option key={m.model} value={m.model} />
              ))}
            </datalist>
          </div>
          <div className="field">
            <label htmlFor="pin-target">Prefer</label>
            <select id="pin-target" value={target} onChange={(e) => setTarget(e.target.value)}>
              {targets.map((t) => (
                <option key={t} value={t}>
                  {t === 'local' ? 'This Hub (local)' : t}
                </option>
              ))}
            </select>
          </div>
          <button
            type="button"
            className="field"
            onClick={() =>
              void act(
                () => api('POST', `${POOL}/pins`, model.trim() === '' ? { scope: 'default', target } : { scope: 'model', model: model.trim(), target }),
                'Pin saved.',
              )
            }
          >
            Add pin
          </button>
        </div>
      )}
    </Section>
  );
}

function PoolModels({ s }: { s: PoolStatus }) {
  const single = s.models.filter((m) => m.singleNode).length;
  return (
    <Section id="pool-models-title" title="What the pool can serve">
      <p className="small">
        {plural(s.models.length, 'model', 'models')}, {single} on one node only.
      </p>
      {s.models.length === 0 ? (
        <p className="muted">No reachable node reports a model.</p>
      ) : (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Model</th>
                <th scope="col">Nodes</th>
              </tr>
            </thead>
            <tbody>
              {s.models.map((m) => (
                <tr key={m.model}>
                  <td className="mono">
                    {m.model}
                    {m.singleNode && (
                      <span title="On one node only" aria-label="warning: on one node only">
                        {' '}
                        ⚠
                      </span>
                    )}
                  </td>
                  <td className="mono">{m.nodes.join(', ')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Section>
  );
}

/**
 * A node's cap or ceiling as cihub pool status reads it (src/cli/render/context-caps.ts): a number,
 * none (the node answered and named none, which placement reads as taking any size), or not known
 * (a peer whose first health check has not answered). The two words never stand for each other.
 */
function limitWords(value: number | null, known: boolean): string {
  if (!known) return 'not known';
  return value === null ? 'none' : `${value.toLocaleString()} tokens`;
}

function ContextCaps({ s }: { s: PoolStatus }) {
  const n = s.localNode;
  const peers = s.peers.filter(isPaired);
  return (
    <Section id="context-caps" title="Context caps">
      <div className="table-wrap">
        <table data-testid="context-caps">
          <thead>
            <tr>
              <th scope="col">Node</th>
              <th scope="col">Context cap</th>
              <th scope="col">Prompt ceiling</th>
            </tr>
          </thead>
          <tbody>
            <tr data-node="local">
              <td className="mono">This Hub{n.nodeFqdn !== null ? ` (${n.nodeFqdn})` : ''}</td>
              <td>{limitWords(n.maxNumCtx, true)}</td>
              <td>
                {limitWords(n.maxPromptTokens, true)}
                {n.maxPromptTokensSetBy === 'env' && ' (set by HUB_POOL_MAX_PROMPT_TOKENS in the .env)'}
                {n.maxPromptTokensSetBy === 'setting' && ' (set by poolMaxPromptTokens)'}
              </td>
            </tr>
            {peers.map((p) => (
              <tr key={p.id} data-node={p.nodeFqdn}>
                <td className="mono">
                  {p.nodeFqdn}
                  {/* It takes no work, so the Hub leaves it out of the findings (status's contextCaps). */}
                  {p.status !== 'connected' && <span className="muted"> (unreachable: not counted in the warnings)</span>}
                </td>
                {/* What its last health check said; before the first answer, nothing is known. */}
                <td>{limitWords(p.maxNumCtx, p.backends !== null)}</td>
                <td>{limitWords(p.maxPromptTokens, p.backends !== null)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {contextCapWarnings(s).map((w) => (
        <p key={w} className="notice warn small" data-testid="context-cap-warning">
          {w}
        </p>
      ))}
      <p className="small muted">
        A context cap is the window a node's engine runs: a request asking for a larger window goes first to a node whose cap can take it. A prompt estimated
        above a node's ceiling goes first to a node that can take it. None: the node named no limit, so it is read as taking any size. Not known: its first
        health check has not answered yet.
      </p>
    </Section>
  );
}

function RecentRouting() {
  const log = useRoutingLog();
  const now = useNow(5_000);
  const rows = log.rows.slice(0, RECENT_ROWS);
  const c = log.summary?.counts;
  return (
    <Section id="recent-routing" title="Recent routing">
      <p data-testid="routing-summary">
        {c === undefined ? (
          'Not read yet'
        ) : (
          <>
            {`${c.served} served · ${failedWords(c)} · ${c.failedOver} failed over`}
            <span className="small muted"> (of the {log.summary?.recorded} decisions the Hub holds; a restart clears them)</span>
          </>
        )}
      </p>
      {log.error !== null && <p className="notice bad">Could not read the routing log: {log.error}</p>}
      {log.summary !== null && <FirstByteChart rows={log.rows} now={now} />}
      {log.summary === null ? null : rows.length === 0 ? (
        <p className="muted">No requests yet.</p>
      ) : (
        <div className="table-wrap">
          <table data-testid="recent-routing">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Model</th>
                <th scope="col">Served by</th>
                <th scope="col">Outcome</th>
                <th scope="col">First byte</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.id} data-node={r.node ?? ''}>
                  <td>{ago(r.timestamp, now)}</td>
                  <td className="mono">{r.model ?? '—'}</td>
                  <td className="mono">
                    {rowServedBy(r)}
                    {rowFailovers(r) !== null && <div className="small badge warn">{rowFailovers(r)}</div>}
                  </td>
                  <td>{rowOutcome(r)}</td>
                  <td>{ms(r.durationMs)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Section>
  );
}
