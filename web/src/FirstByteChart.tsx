import { useLayoutEffect, useState } from 'react';
import type { RoutingRow } from './types';
import { isRefused, median, ms, recentOutbound } from './words';

/** The chart's window: the last 30 minutes, as Resources counts failures. */
export const CHART_WINDOW_MS = 30 * 60 * 1000;
/** The drawing's width before the chart is measured: its width on a desktop screen. */
const FIRST_WIDTH_PX = 640;
/** Narrower than this the plot area would vanish between the paddings. */
const MIN_WIDTH_PX = 200;
const H = 200;
/**
 * The axis labels' size on screen. The drawing is as wide as the chart is on screen, one unit a
 * pixel: drawn 640 wide and scaled down to a phone's 330 px, labels set at 11 came out under 6 px.
 */
const AXIS_LABEL_PX = 12;
const PAD = { left: 52, right: 12, top: 10, bottom: 28 };
/** Distinct in light and dark mode, and for the common colour-vision deficiencies (Okabe–Ito). */
const COLOURS = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00'];

/** First-byte time per serving node over the last 30 minutes: one line and its points per node. */
export function FirstByteChart({ rows, now }: { rows: readonly RoutingRow[]; now: number }) {
  const [svg, width] = useWidthOnScreen();
  // A refusal (even on a row that says served) is a node saying no, not a first byte of an answer.
  const points = recentOutbound(rows, now, CHART_WINDOW_MS).filter((r) => r.outcome === 'served' && !isRefused(r) && r.durationMs !== null && r.node !== null);
  const nodes = [...new Set(points.map((r) => r.node!))].sort((a, b) => Number(b === 'local') - Number(a === 'local') || a.localeCompare(b));
  const maxMs = Math.max(100, ...points.map((r) => r.durationMs!));
  const x = (iso: string) => PAD.left + ((Date.parse(iso) - (now - CHART_WINDOW_MS)) / CHART_WINDOW_MS) * (width - PAD.left - PAD.right);
  const y = (v: number) => H - PAD.bottom - (v / maxMs) * (H - PAD.top - PAD.bottom);
  const summary = nodes.map((n) => `${n}: median ${ms(median(points.filter((r) => r.node === n).map((r) => r.durationMs!)))}`).join('; ');

  return (
    <figure className="chart" style={{ margin: '0.5rem 0 1rem' }}>
      <figcaption className="small">First byte per node, last 30 minutes</figcaption>
      {points.length === 0 ? (
        <p className="muted small">No request was served in the last 30 minutes.</p>
      ) : (
        <>
          <svg
            ref={svg}
            viewBox={`0 0 ${width} ${H}`}
            role="img"
            aria-label={`First-byte time per node over the last 30 minutes. ${summary}`}
            data-testid="first-byte-chart"
          >
            <line x1={PAD.left} y1={H - PAD.bottom} x2={width - PAD.right} y2={H - PAD.bottom} stroke="currentColor" strokeOpacity="0.4" />
            <line x1={PAD.left} y1={PAD.top} x2={PAD.left} y2={H - PAD.bottom} stroke="currentColor" strokeOpacity="0.4" />
            <text x={PAD.left - 6} y={PAD.top + 10} textAnchor="end" fontSize={AXIS_LABEL_PX} fill="currentColor">
              {ms(maxMs)}
            </text>
            <text x={PAD.left - 6} y={H - PAD.bottom} textAnchor="end" fontSize={AXIS_LABEL_PX} fill="currentColor">
              0
            </text>
            <text x={PAD.left} y={H - 8} fontSize={AXIS_LABEL_PX} fill="currentColor">
              30 min ago
            </text>
            <text x={width - PAD.right} y={H - 8} textAnchor="end" fontSize={AXIS_LABEL_PX} fill="currentColor">
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

/**
 * The width the element takes on screen, in whole pixels, kept true as the window changes size;
 * FIRST_WIDTH_PX until it is measured. Its width is set by the page (width: 100%), never by its
 * viewBox, so drawing to the measured width does not change what is measured.
 */
function useWidthOnScreen(): [(node: SVGSVGElement | null) => void, number] {
  // A callback ref: the chart's element comes and goes with its data, and one observer is made
  // per element rather than one per render (the routing log's poll renders every 2 s).
  const [node, setNode] = useState<SVGSVGElement | null>(null);
  const [width, setWidth] = useState(FIRST_WIDTH_PX);
  useLayoutEffect(() => {
    if (node === null) return undefined;
    const measure = () => setWidth(Math.max(MIN_WIDTH_PX, Math.round(node.getBoundingClientRect().width)));
    measure();
    const watch = new ResizeObserver(measure);
    watch.observe(node);
    return () => watch.disconnect();
  }, [node]);
  return [setNode, width];
}
