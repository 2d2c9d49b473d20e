import type { RoutingRow } from './types';
import { isRefused, median, ms, recentOutbound } from './words';

/** The chart's window: the last 30 minutes, as Resources counts failures. */
export const CHART_WINDOW_MS = 30 * 60 * 1000;
const W = 640;
const H = 200;
const PAD = { left: 52, right: 12, top: 10, bottom: 28 };
/** Distinct in light and dark mode, and for the common colour-vision deficiencies (Okabe–Ito). */
const COLOURS = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00'];

/** First-byte time per serving node over the last 30 minutes: one line and its points per node. */
export function FirstByteChart({ rows, now }: { rows: readonly RoutingRow[]; now: number }) {
  // A refusal (even on a row that says served) is a node saying no, not a first byte of an answer.
  const points = recentOutbound(rows, now, CHART_WINDOW_MS).filter((r) => r.outcome === 'served' && !isRefused(r) && r.durationMs !== null && r.node !== null);
  const nodes = [...new Set(points.map((r) => r.node!))].sort((a, b) => Number(b === 'local') - Number(a === 'local') || a.localeCompare(b));
  const maxMs = Math.max(100, ...points.map((r) => r.durationMs!));
  const x = (iso: string) => PAD.left + ((Date.parse(iso) - (now - CHART_WINDOW_MS)) / CHART_WINDOW_MS) * (W - PAD.left - PAD.right);
  const y = (v: number) => H - PAD.bottom - (v / maxMs) * (H - PAD.top - PAD.bottom);
  const summary = nodes.map((n) => `${n}: median ${ms(median(points.filter((r) => r.node === n).map((r) => r.durationMs!)))}`).join('; ');

  return (
    <figure className="chart" style={{ margin: '0.5rem 0 1rem' }}>
      <figcaption className="small">First byte per node, last 30 minutes</figcaption>
      {points.length === 0 ? (
        <p className="muted small">No request was served in the last 30 minutes.</p>
      ) : (
        <>
          <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`First-byte time per node over the last 30 minutes. ${summary}`} data-testid="first-byte-chart">
            <line x1={PAD.left} y1={H - PAD.bottom} x2={W - PAD.right} y2={H - PAD.bottom} stroke="currentColor" strokeOpacity="0.4" />
            <line x1={PAD.left} y1={PAD.top} x2={PAD.left} y2={H - PAD.bottom} stroke="currentColor" strokeOpacity="0.4" />
            <text x={PAD.left - 6} y={PAD.top + 10} textAnchor="end" fontSize="11" fill="currentColor">
              {ms(maxMs)}
            </text>
            <text x={PAD.left - 6} y={H - PAD.bottom} textAnchor="end" fontSize="11" fill="currentColor">
              0
            </text>
            <text x={PAD.left} y={H - 8} fontSize="11" fill="currentColor">
              30 min ago
            </text>
            <text x={W - PAD.right} y={H - 8} textAnchor="end" fontSize="11" fill="currentColor">
              now
            </text>
            {nodes.map((node, i) => {
              const mine = points.filter((r) => r.node === node).sort((a, b) => a.timestamp.localeCompare(b.timestamp));
              const colour = COLOURS[i % COLOURS.length];
              return (
                <g key={node} data-node={node}>
                  <polyline
                    fill="none"
                    stroke={colour}
                    strokeWidth="2"
                    points={mine.map((r) => `${x(r.timestamp).toFixed(1)},${y(r.durationMs!).toFixed(1)}`).join(' ')}
                  />
                  {mine.map((r) => (
                    <circle key={r.id} cx={x(r.timestamp)} cy={y(r.durationMs!)} r="3" fill={colour}>
                      <title>{`${node}: ${ms(r.durationMs)} at ${new Date(r.timestamp).toLocaleTimeString()}`}</title>
                    </circle>
                  ))}
                </g>
              );
            })}
          </svg>
          <div className="legend">
            {nodes.map((node, i) => (
              <span key={node}>
                <span className="swatch" style={{ background: COLOURS[i % COLOURS.length] }} />
                <span className="mono">{node}</span>
              </span>
            ))}
          </div>
        </>
      )}
    </figure>
  );
}
