import { useState } from 'react';
import { useDashboard } from './context';
import { HubLog } from './HubLog';
import { KEPT_ROUTING_ROWS, useNow, useRoutingLog } from './hooks';
import { ago, isFailure, ms, rowFailovers, rowOutcome, rowServedBy } from './words';
import { SaidOnChange, useSaidOnChange } from './SaidOnChange';
import { TableWrap } from './TableWrap';

/** Settings → Logs: the Hub's own log (operator only) and the routing log. */
export function LogView() {
  const { readOnly } = useDashboard();
  return (
    <>
      {readOnly ? (
        <p className="notice small">The Hub log is shown to an operator sign-in only; a qa:read key reads pool status and the routing log.</p>
      ) : (
        <HubLog />
      )}
      <RoutingLog />
    </>
  );
}

/** The newest rows of the routing log (as many as useRoutingLog keeps), filterable: where each request went and why. */
function RoutingLog() {
  const log = useRoutingLog();
  const now = useNow(5_000);
  const [filter, setFilter] = useState('');
  const [onlyProblems, setOnlyProblems] = useState(false);
  const f = filter.trim().toLowerCase();
  const rows = log.rows.filter(
    (r) =>
      (!onlyProblems || isFailure(r) || r.attempts.length > 0) &&
      (f === '' || [r.model, r.node, r.path, r.reason, r.id, ...r.attempts.map((a) => `${a.node} ${a.reason}`)].some((t) => t?.toLowerCase().includes(f))),
  );
  const told = useSaidOnChange(log.summary === null ? null : `${rows.length} of ${log.rows.length} routing decisions shown`);
  return (
    <section className="card" aria-labelledby="log-title">
      <h2 id="log-title">Routing log</h2>
      <p className="small muted">Up to the newest {KEPT_ROUTING_ROWS} decisions this Hub holds in memory (newest first), updated every 2 s.</p>
      <div className="row">
        <div className="field">
          <label htmlFor="log-filter">Filter</label>
          <input
            id="log-filter"
            type="text"
            value={filter}
            onChange={(e) => {
              setFilter(e.target.value);
              told.changed();
            }}
            placeholder="model, node, reason…"
          />
        </div>
        <div className="switch">
          <input
            id="log-problems"
            type="checkbox"
            checked={onlyProblems}
            onChange={(e) => {
              setOnlyProblems(e.target.checked);
              told.changed();
            }}
          />
          <label htmlFor="log-problems">Only failures and failovers</label>
        </div>
      </div>
      <SaidOnChange said={told.said} testId="routing-log-said" />
      {log.error !== null && (
        <p className="notice bad" role="alert">
          Could not read the routing log: {log.error}.{log.summary !== null ? ' The rows below are from the last read.' : ''}
        </p>
      )}
      {log.summary === null ? (
        log.error === null && <p className="muted">Loading…</p>
      ) : (
        <>
          <p className="small">
            Showing {rows.length} of {log.rows.length}
          </p>
          <TableWrap label="Routing log rows">
            <table>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Direction</th>
                  <th scope="col">Path</th>
                  <th scope="col">Model</th>
                  <th scope="col">Node</th>
                  <th scope="col">Outcome</th>
                  <th scope="col">First byte</th>
                  <th scope="col">Total</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((r) => (
                  <tr key={r.id}>
                    <td title={r.timestamp}>{ago(r.timestamp, now)}</td>
                    <td>{r.direction}</td>
                    <td className="mono">{r.path}</td>
                    <td className="mono">{r.model ?? '—'}</td>
                    <td className="mono">
                      {rowServedBy(r)}
                      {rowFailovers(r) !== null && <div className="small">{rowFailovers(r)}</div>}
                    </td>
                    <td>{rowOutcome(r)}</td>
                    <td>{ms(r.durationMs)}</td>
                    <td>{ms(r.totalMs)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        </>
      )}
    </section>
  );
}
