import { api, POOL } from './api';
import { FirstByteChart, CHART_WINDOW_MS } from './FirstByteChart';
import { FirstReadFailed } from './FirstReadFailed';
import { KEPT_ROUTING_ROWS, useNow, usePoll, useRoutingLog } from './hooks';
import { POOL_PAGE_POLL_MS } from './hub-pool/polling';
import type { PoolStatus, RoutingRow, ThroughputAdvert, ThroughputEstimate } from './types';
import {
  distinctModelNames,
  failedOverFromNode,
  failedRowsParts,
  failedRowsWords,
  isPaired,
  isRefused,
  lastSeenWords,
  localEnginesWords,
  localPressureWords,
  localTierWords,
  median,
  ms,
  notCandidateWords,
  peerPressureWords,
  peerState,
  staleQueueWords,
  peerTags,
  percentile,
  plural,
  speedLine,
  tierWords,
  windowCutWords,
} from './words';

interface NodeCard {
  readonly name: string;
  readonly title: string;
  /** Null for a peer not polled yet: its models are unknown, which is not none. */
  readonly models: readonly string[] | null;
  /** For a peer whose figures are from a poll before its checks began failing: how old they are; null while current. */
  readonly seen: string | null;
  /** The queue ranking counts, or why there is none. */
  readonly queue: string;
  /** What the Paired Hubs row tags the node with (peers only). */
  readonly tags: readonly string[];
  readonly state: string;
  readonly tier: string;
  /** The GPU-pressure band the node advertises, or why none is held; null when status carries no band field. */
  readonly pressure: string | null;
  /** Lines of measured speed; null when the Hub's status carries no throughput (an older Hub). */
  readonly speed: readonly string[] | null;
}

/** A node's models, each once; null (not polled yet) stays null. */
function modelsOf(backends: readonly { readonly models: readonly string[] }[] | null): readonly string[] | null {
  return backends === null ? null : distinctModelNames(backends);
}

/** This Hub's own readings of its engines. */
function localSpeed(t: { readonly estimates: readonly ThroughputEstimate[] } | undefined): readonly string[] | null {
  if (t === undefined) return null;
  return t.estimates.map((e) => speedLine(e.backendId === null ? e.model : `${e.model} on ${e.backendId}`, e, 'timed by this Hub'));
}

/** A peer: what this Hub timed it at, then what it says it measured itself. */
function peerSpeed(
  t: { readonly observed: readonly ThroughputEstimate[]; readonly advertised: ThroughputAdvert | null } | undefined,
): readonly string[] | null {
  if (t === undefined) return null;
  return [
    ...t.observed.map((e) => speedLine(e.model, e, 'timed by this Hub')),
    ...Object.entries(t.advertised ?? {}).map(([model, m]) => speedLine(model, m, 'as that Hub measured it')),
  ];
}

/** Resources: a card per Hub (this one and each paired one) with what it holds and how it has answered this Hub. */
export function Resources() {
  const status = usePoll(() => api<PoolStatus>('GET', `${POOL}/status`), POOL_PAGE_POLL_MS);
  const log = useRoutingLog();
  const now = useNow(5_000);
  const s = status.data;
  if (s === null)
    return status.error === null ? (
      <p className="muted">Loading…</p>
    ) : (
      <FirstReadFailed what="this Hub's pool status" error={status.error} everyMs={POOL_PAGE_POLL_MS} />
    );

  const cards: NodeCard[] = [
    {
      name: 'local',
      title: `This Hub${s.localNode.nodeFqdn !== null ? ` (${s.localNode.nodeFqdn})` : ''}`,
      models: modelsOf(s.localNode.backends),
      seen: null,
      queue: `${s.localNode.queueDepth} in flight`,
      tags: [],
      state: localEnginesWords(s.localNode.backends),
      // The tier and band peers rank this node on; a status without them says only "This machine".
      tier: localTierWords(s.localNode.hardware) ?? 'This machine',
      pressure: localPressureWords(s.localNode.gpuPressure),
      speed: localSpeed(s.localNode.throughput),
    },
    ...s.peers.filter(isPaired).map((p) => ({
      name: p.nodeFqdn,
      title: p.nodeFqdn,
      models: modelsOf(p.backends),
      seen: lastSeenWords(p, now),
      // What ranking counts (aged, with this Hub's forwards), as for the local card; null: no candidate now.
      // A stale peer's figure is the mid-load stand-in: "2 in flight" on a peer that had gone quiet was made up.
      queue:
        p.queueDepth == null
          ? notCandidateWords(p, s.directions.outbound.enabled)
          : p.loadReported === false || p.snapshotStale === true
            ? staleQueueWords(p.queueDepth)
            : `${p.queueDepth} in flight`,
      tags: peerTags(p),
      state: peerState(p).label,
      tier: tierWords(p),
      pressure: peerPressureWords(p),
      speed: peerSpeed(p.throughput),
    })),
  ];
  // Until the routing log has been read once, its figures are unknown, not zero.
  const logRead = log.summary !== null;
  const recent = log.rows.filter((r) => r.direction === 'outbound' && now - Date.parse(r.timestamp) <= CHART_WINDOW_MS);
  // A walk that ran out of candidates leaves node null and names each node it tried in attempts:
  // those failures are the nodes', so only a request no node was tried for is unplaced.
  const unplaced = recent.filter((r) => r.outcome === 'failed' && r.node === null && r.attempts.length === 0);
  const cut = log.summary === null ? null : windowCutWords(log.rows, log.summary.totalRecorded > log.summary.recorded, KEPT_ROUTING_ROWS, now, CHART_WINDOW_MS);
  const rowsOf = (node: string) =>
    recent.filter((r) => r.node === node || (r.node === null && r.outcome === 'failed' && r.attempts.some((a) => a.node === node)));
  // These rows name the node that answered; without them a node whose every request a peer picks up reads 0 failed.
  const failedOverOf = (node: string) => failedOverFromNode(recent, node).length;

  return (
    <>
      <h2>Resources</h2>
      {status.error !== null && (
        <p className="notice bad" role="alert">
          Could not refresh: {status.error}. The cards show the last status read.
        </p>
      )}
      {log.error !== null && (
        <p className="notice bad" role="alert">
          Could not read the routing log: {log.error}.{logRead ? ' The request figures are from the last read.' : ''}
        </p>
      )}
      {logRead && cut !== null && (
        <p className="notice" data-testid="window-cut">
          {cut}
        </p>
      )}
      <div className="cards">
        {cards.map((c) => (
          <ResourceCard key={c.name} card={c} rows={logRead ? rowsOf(c.name) : null} failedOver={failedOverOf(c.name)} />
        ))}
        <section className="card" aria-labelledby="res-unplaced">
          <h3 id="res-unplaced">Unplaced</h3>
          <p data-testid="unplaced">
            {logRead
              ? `${unplaced.length} failed in the last 30 minutes before any node was tried${failedRowsParts(unplaced)}.`
              : 'Not read: the routing log could not be read yet.'}
          </p>
          <p className="small muted">
            No pool node had the model, or the app left before one was tried. A request that failed on every node it was tried on counts in each of those nodes'
            Failed 30m; one that failed on a node and was then sent to another counts in the first node's Failed 30m as failed over.
          </p>
        </section>
      </div>
      {logRead && (
        <section className="card">
          <FirstByteChart rows={log.rows} now={now} />
        </section>
      )}
    </>
  );
}

/**
 * `rows`: this node's requests from the routing log (with those that failed at every node tried); null when the log has not been read.
 * `failedOver`: how many requests failed here and were sent on to another node.
 */
function ResourceCard({ card, rows, failedOver }: { card: NodeCard; rows: readonly RoutingRow[] | null; failedOver: number }) {
  // A refusal's first byte times how fast a node said no (about 5 ms), not how fast it serves.
  const firstBytes = (rows ?? []).filter((r) => r.outcome === 'served' && !isRefused(r) && r.durationMs !== null).map((r) => r.durationMs!);
  const id = `res-${card.name.replace(/[^a-z0-9]/gi, '-')}`;
  return (
    <section className="card" aria-labelledby={id} data-testid="resource-card" data-node={card.name}>
      <h3 id={id} className="mono">
        {card.title}
      </h3>
      <p className="small">
        {card.state} · {card.tier}
        {card.seen !== null && ` (${card.seen})`}
        {card.pressure !== null && ` · ${card.pressure}`}
        {card.tags.map((t) => (
          <span key={t} className="tag" style={{ marginLeft: '0.4rem' }}>
            {t}
          </span>
        ))}
      </p>
      <dl className="small">
        <dt>Models</dt>
        <dd className="mono" data-testid="models">
          {card.models === null
            ? 'Unknown: not polled yet'
            : `${card.models.length === 0 ? 'none reported' : card.models.join(', ')}${card.seen === null ? '' : ` (${card.seen})`}`}
        </dd>
        <dt>Queue</dt>
        <dd data-testid="queue">{card.queue}</dd>
        <dt>Measured speed</dt>
        <dd data-testid="measured-speed">
          {card.speed === null
            ? 'Not reported by this Hub version'
            : card.speed.length === 0
              ? 'Not measured yet: a node is timed on prompts of 4,096 tokens or more.'
              : card.speed.map((line) => <div key={line}>{line}</div>)}
        </dd>
        <dt>First byte (last 30 min, requests from this Hub)</dt>
        <dd>
          {rows === null
            ? 'not read'
            : firstBytes.length === 0
              ? 'no requests'
              : `median ${ms(median(firstBytes))}, p90 ${ms(percentile(firstBytes, 90))} over ${plural(firstBytes.length, 'request', 'requests')}`}
        </dd>
        <dt>Failed 30m</dt>
        <dd data-testid="failed-30m">{rows === null ? 'not read' : failedRowsWords(rows, failedOver)}</dd>
      </dl>
    </section>
  );
}
