import { FirstByteChart } from '../FirstByteChart';
import { useNow, useRoutingLog } from '../hooks';
import { ago, failedWords, ms, rowFailovers, rowOutcome, rowServedBy } from '../words';
import { Section } from './section';
import { TableWrap } from '../TableWrap';

/** Recent routing shows this many of the rows the Hub keeps. */
const RECENT_ROWS = 25;

export function RecentRouting() {
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
      {log.error !== null && (
        <p className="notice bad">
          Could not read the routing log: {log.error}.{log.summary !== null ? ' The counts and rows shown are from the last read.' : ''}
        </p>
      )}
      {log.summary !== null && <FirstByteChart rows={log.rows} now={now} />}
      {log.summary === null ? null : rows.length === 0 ? (
        <p className="muted">No requests yet.</p>
      ) : (
        <TableWrap label="Recent routing rows">
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
        </TableWrap>
      )}
    </Section>
  );
}
