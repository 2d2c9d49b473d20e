import { api, POOL } from './api';
import { FirstByteChart, CHART_WINDOW_MS } from './FirstByteChart';
import { useNow, usePoll, useRoutingLog } from './hooks';
import { POOL_PAGE_POLL_MS } from './HubPool';
import type { PoolStatus, RoutingRow } from './types';
import { isPaired, median, ms, peerState, percentile, tierWords } from './words';

interface NodeCard {
  readonly name: string;
  readonly title: string;
  readonly models: readonly string[];
  /** null when the node has not reported it. */
  readonly queue: number | null;
  readonly state: string;
  readonly tier: string;
}

/** Resources: a card per Hub (this one and each paired one) with what it holds and how it has answered this Hub. */
export function Resources() {
  const status = usePoll(() => api<PoolStatus>('GET', `${POOL}/status`), POOL_PAGE_POLL_MS);
  const log = useRoutingLog();
  const now = useNow(5_000);
  const s = status.data;
  if (s === null) return <p className="muted">{status.error ?? 'Loading…'}</p>;

  const cards: NodeCard[] = [
    {
      name: 'local',
      title: `This Hub${s.localNode.nodeFqdn !== null ? ` (${s.localNode.nodeFqdn})` : ''}`,
      models: s.localNode.backends.flatMap((b) => b.models),
      queue: s.localNode.queueDepth,
      state: s.localNode.backends.some((b) => b.healthy) ? 'Engines healthy' : 'No healthy engine',
      tier: 'This machine',
    },
    ...s.peers.filter(isPaired).map((p) => ({
      name: p.nodeFqdn,
      title: p.nodeFqdn,
      models: p.backends?.flatMap((b) => b.models) ?? [],
      queue: p.inFlightRequests,
      state: peerState(p).label,
      tier: tierWords(p.hardwareTier),
    })),
  ];
  const recent = log.rows.filter((r) => r.direction === 'outbound' && now - Date.parse(r.timestamp) <= CHART_WINDOW_MS);
  const unplaced = recent.filter((r) => r.outcome === 'failed' && r.node === null);

  return (
    <>
      <h2>Resources</h2>
      <div className="cards">
        {cards.map((c) => (
          <ResourceCard key={c.name} card={c} rows={recent.filter((r) => r.node === c.name)} />
        ))}
        <section className="card" aria-labelledby="res-unplaced">
          <h3 id="res-unplaced">Unplaced</h3>
          <p>{unplaced.length} failed in the last 30 minutes without any node answering.</p>
          <p className="small muted">No pool node had the model, or the app left before one was tried.</p>
        </section>
      </div>
      <section className="card">
        <FirstByteChart rows={log.rows} now={now} />
      </section>
    </>
  );
}

function ResourceCard({ card, rows }: { card: NodeCard; rows: readonly RoutingRow[] }) {
  const firstBytes = rows.filter((r) => r.outcome === 'served' && r.durationMs !== null).map((r) => r.durationMs!);
  const failed = rows.filter((r) => r.outcome === 'failed').length;
  const id = `res-${card.name.replace(/[^a-z0-9]/gi, '-')}`;
  return (
    <section className="card" aria-labelledby={id} data-testid="resource-card" data-node={card.name}>
      <h3 id={id} className="mono">
        {card.title}
      </h3>
      <p className="small">
        {card.state} · {card.tier}
      </p>
      <dl className="small">
        <dt>Models</dt>
        <dd className="mono">{card.models.length === 0 ? 'none reported' : card.models.join(', ')}</dd>
        <dt>Queue</dt>
        <dd>{card.queue === null ? 'not reported yet' : `${card.queue} in flight`}</dd>
        <dt>Measured speed</dt>
        <dd>Not reported by this Hub version</dd>
        <dt>First byte (last 30 min, requests from this Hub)</dt>
        <dd>{firstBytes.length === 0 ? 'no requests' : `median ${ms(median(firstBytes))}, p90 ${ms(percentile(firstBytes, 90))} over ${firstBytes.length}`}</dd>
        <dt>Failed 30m</dt>
        <dd data-testid="failed-30m">{failed}</dd>
      </dl>
    </section>
  );
}
