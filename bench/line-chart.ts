/**
 * A small hand-written SVG line chart with linear axes: one or more panels stacked, each with its
 * own y axis and series, sharing the x axis. Used by bench/soak (RSS and event-loop delay over
 * time) and bench/pool-scale (CPU against the number of peers).
 */

const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b'];
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export interface Series {
  readonly label: string;
  readonly points: readonly (readonly [number, number])[];
}

export interface Panel {
  readonly yLabel: string;
  readonly series: readonly Series[];
  /** Horizontal reference lines (a target, a start level). */
  readonly marks?: readonly { readonly y: number; readonly label: string }[];
}

/** Round numbers for an axis from 0 to about `max`. */
function ticks(max: number): number[] {
  if (!(max > 0)) return [0, 1];
  const raw = max / 5;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw)!;
  const out: number[] = [];
  for (let v = 0; v <= max + step / 2; v += step) out.push(Number(v.toPrecision(6)));
  return out;
}

export function lineChart(title: string, xLabel: string, panels: readonly Panel[], bands: readonly { from: number; to: number; label: string }[] = []): string {
  const W = 820;
  const panelH = 240;
  const L = 70;
  const R = 190;
  const T = 40;
  const gap = 40;
  const B = 50;
  const H = T + panels.length * panelH + (panels.length - 1) * gap + B;
  const xs = panels.flatMap((p) => p.series.flatMap((s) => s.points.map(([x]) => x)));
  const xMin = Math.min(0, ...xs);
  const xMax = Math.max(1, ...xs);
  const x = (v: number) => L + ((v - xMin) / (xMax - xMin)) * (W - L - R);
  const parts: string[] = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`);
  parts.push(`<rect width="${W}" height="${H}" fill="white"/>`);
  parts.push(`<text x="${L}" y="22" font-size="14" font-weight="bold">${esc(title)}</text>`);
  panels.forEach((panel, pi) => {
    const top = T + pi * (panelH + gap);
    const ys = panel.series.flatMap((s) => s.points.map(([, y]) => y)).concat((panel.marks ?? []).map((m) => m.y));
    const yTicks = ticks(Math.max(...ys, 0) * 1.05);
    const yMax = yTicks[yTicks.length - 1]!;
    const y = (v: number) => top + (1 - v / yMax) * panelH;
    for (const b of bands) parts.push(`<rect x="${x(b.from)}" y="${top}" width="${Math.max(1, x(b.to) - x(b.from))}" height="${panelH}" fill="#f3e6e6"/>`);
    for (const t of yTicks) {
      parts.push(`<line x1="${L}" y1="${y(t)}" x2="${W - R}" y2="${y(t)}" stroke="#e4e4e4"/>`);
      parts.push(`<text x="${L - 6}" y="${y(t) + 4}" text-anchor="end">${t}</text>`);
    }
    parts.push(`<text transform="translate(16 ${top + panelH / 2}) rotate(-90)" text-anchor="middle">${esc(panel.yLabel)}</text>`);
    for (const m of panel.marks ?? []) {
      parts.push(`<line x1="${L}" y1="${y(m.y)}" x2="${W - R}" y2="${y(m.y)}" stroke="#555" stroke-dasharray="4 3"/>`);
      parts.push(`<text x="${W - R + 6}" y="${y(m.y) + 4}" fill="#555">${esc(m.label)}</text>`);
    }
    panel.series.forEach((s, si) => {
      if (s.points.length === 0) return;
      const d = s.points.map(([px, py], i) => `${i === 0 ? 'M' : 'L'}${x(px).toFixed(1)} ${y(py).toFixed(1)}`).join(' ');
      parts.push(`<path d="${d}" fill="none" stroke="${COLORS[si % COLORS.length]}" stroke-width="1.6"/>`);
      parts.push(`<rect x="${W - R + 6}" y="${top + 10 + si * 18}" width="12" height="3" fill="${COLORS[si % COLORS.length]}"/>`);
      parts.push(`<text x="${W - R + 24}" y="${top + 15 + si * 18}">${esc(s.label)}</text>`);
    });
    parts.push(`<rect x="${L}" y="${top}" width="${W - L - R}" height="${panelH}" fill="none" stroke="#999"/>`);
  });
  const bottom = T + panels.length * panelH + (panels.length - 1) * gap;
  for (const t of ticks(xMax - xMin)) {
    const v = xMin + t;
    if (v > xMax) continue;
    parts.push(`<text x="${x(v)}" y="${bottom + 16}" text-anchor="middle">${v}</text>`);
  }
  parts.push(`<text x="${L + (W - L - R) / 2}" y="${bottom + 36}" text-anchor="middle">${esc(xLabel)}</text>`);
  if (bands.length > 0) parts.push(`<text x="${W - R + 6}" y="${bottom + 16}" fill="#a66">shaded: ${esc(bands[0]!.label)}</text>`);
  parts.push('</svg>');
  return parts.join('\n');
}
