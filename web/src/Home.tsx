import { useState } from 'react';
import { api, POOL } from './api';
import { readStored, writeStored } from './browser-storage';
import { useDashboard } from './context';
import { FirstReadFailed } from './FirstReadFailed';
import { FirstRun, firstRunFinished } from './FirstRun';
import { usePoll } from './hooks';
import { NewRequestsSaid } from './NewRequestsSaid';
import type { PoolStatus, RoutingLogPage } from './types';
import { failedWords, isPaired, pairedHubsWords, plural, poolBadge } from './words';

/** Home reads status this often (the guide's figure). */
export const HOME_POLL_MS = 30_000;
/** Per browser origin, as the guide says: each address and the desktop app keep their own. */
const DISMISS_KEY = 'cihub.poolCardDismissed';

export function Home() {
  const { readOnly, guideOpen, openGuide } = useDashboard();
  const status = usePoll(() => api<PoolStatus>('GET', `${POOL}/status`), HOME_POLL_MS);
  const log = usePoll(() => api<RoutingLogPage>('GET', `${POOL}/routing-log?limit=1`), HOME_POLL_MS);
  const [dismissed, setDismissed] = useState(() => readStored(DISMISS_KEY) === '1');
  const [finished, setFinished] = useState(firstRunFinished);
  const s = status.data;
  if (s === null)
    return status.error === null ? (
      <p className="muted">Loading…</p>
    ) : (
      <FirstReadFailed what="this Hub's pool status" error={status.error} everyMs={HOME_POLL_MS} />
    );

  const paired = s.peers.filter(isPaired);
  const waitingHere = s.peers.filter((p) => p.status === 'pending' && p.direction === 'inbound');
  const pending = s.peers.filter((p) => p.status === 'pending');
  // A Hub with any peer is past its first run; while first-run setup shows, it carries the pool offer, so the card waits.
  const showFirstRun = !readOnly && !finished && s.peers.length === 0;
  // Connected, not merely named: a stopped Tailscale keeps the name. The HUB_NODE_FQDN stand-in (tests, demos) counts as connected.
  const n = s.localNode;
  const onTailnet = (n.tailscaleConnected && n.nodeFqdn !== null) || n.tailnetSource === 'env';
  const showPoolCard = !readOnly && !showFirstRun && !dismissed && onTailnet && s.enabled && paired.length === 0 && pending.length === 0;
  const badge = poolBadge(s);
  const summary = log.data?.summary;

  return (
    <>
      <h2 className="visually-hidden">Home</h2>
      {status.error !== null && (
        <p className="notice bad" role="alert">
          Could not refresh: {status.error}. This page shows the last status read.
        </p>
      )}
      {showFirstRun && <FirstRun s={s} onFinish={() => setFinished(true)} />}
      {/* Not in the review card: the card comes and goes with the requests, and a live region must be there first. */}
      <NewRequestsSaid s={s} testId="home-arrivals-said" quiet={guideOpen} />
      {waitingHere.length > 0 && (
        <section className="card" aria-labelledby="review-title">
          <h2 id="review-title">{waitingHere.length === 1 ? '1 Hub wants to join your pool' : `${waitingHere.length} Hubs want to join your pool`}</h2>
          <p className="muted">{waitingHere.map((p) => p.nodeFqdn).join(', ')}</p>
          {readOnly ? (
            <p className="small muted">An operator approves or rejects it; this sign-in is read-only.</p>
          ) : (
            <button type="button" className="primary" onClick={() => openGuide('approve')}>
              {waitingHere.length === 1 ? 'Review request' : 'Review requests'}
            </button>
          )}
        </section>
      )}
      {showPoolCard && (
        <section className="card" aria-labelledby="pool-card-title">
          <h2 id="pool-card-title">Pool your Hubs</h2>
          <p>
            Let an app on this Hub be served by another Hub you own when that Hub has the model or a shorter queue. Pairing takes a few minutes and ends with a
            test.
          </p>
          <div className="row">
            <button type="button" className="primary" onClick={() => openGuide()}>
              Set up Hub Pool
            </button>
            <button
              type="button"
              onClick={() => {
                writeStored(DISMISS_KEY, '1');
                setDismissed(true);
              }}
            >
              Dismiss
            </button>
          </div>
        </section>
      )}
      <div className="cards">
        <section className="card" aria-labelledby="home-badge">
          <h2 id="home-badge">Hub Pool</h2>
          <p>
            <span className={`badge ${badge.tone}`}>{badge.text}</span>
          </p>
          <p className="small muted">{badge.detail}</p>
          <a href="#/pool">Open Hub Pool</a>
        </section>
        <section className="card" aria-labelledby="home-hubs">
          <h2 id="home-hubs">Paired Hubs</h2>
          <p data-testid="home-hubs-count">{pairedHubsWords(paired)}</p>
          <p className="small muted">{plural(pending.length, 'request pending', 'requests pending')}</p>
        </section>
        <section className="card" aria-labelledby="home-models">
          <h2 id="home-models">Models in the pool</h2>
          <p>{plural(s.models.length, 'model', 'models')}</p>
          <p className="small muted">{plural(s.models.filter((m) => m.singleNode).length, 'model on one node only', 'models on one node only')}</p>
        </section>
        <section className="card" aria-labelledby="home-requests">
          <h2 id="home-requests">Requests since the Hub started</h2>
          {log.error !== null && (
            <p className="small notice bad">
              Could not read the routing log: {log.error}.{summary !== undefined ? ' The counts below are from the last read.' : ''}
            </p>
          )}
          {summary === undefined ? (
            log.error === null && <p className="muted">Loading…</p>
          ) : (
            <>
              <p>{plural(summary.totalRecorded, 'request', 'requests')} since the Hub started</p>
              {/* The counts are over the rows the routing log still holds, which is fewer once it has evicted some. */}
              <p className="small muted">
                {summary.totalRecorded > summary.recorded ? `Of the newest ${summary.recorded} it holds: ` : ''}
                {summary.counts.served} served · {failedWords(summary.counts)} · {summary.counts.failedOver} failed over
              </p>
            </>
          )}
          <a href="#/logs">Open the routing log</a>
        </section>
      </div>
    </>
  );
}
