/**
 * The charts, as hand-written SVG: TTFT distributions per policy (one line per policy, log time
 * axis) and load per node over time (one heat strip per node, one panel per policy).
 */
import type { RunResult } from './simulate.js';
import { LOAD_SAMPLE_MS } from './simulate.js';

const COLORS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#17becf', '#7f7f7f'];
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Cumulative distribution of TTFT (seconds, log axis) for each run, over the requests `pick` keeps. */
export function ttftCdf(runs: readonly RunResult[], pick: (r: RunResult['requests'][number]) => boolean, title: string): string {
  const W = 760;
  const H = 420;
  const L = 60;
  const R = 200;
  const T = 40;
  const B = 50;
  const minS = 0.1;
  const maxS = 3000;
  const x = (s: number) => L + ((Math.log10(Math.max(minS, Math.min(maxS, s))) - Math.log10(minS)) / (Math.log10(maxS) - Math.log10(minS))) * (W - L - R);
  const y = (f: number) => T + (1 - f) * (H - T - B);
  const parts: string[] = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`);
  parts.push(`<rect width="${W}" height="${H}" fill="white"/>`);
  parts.push(`<text x="${L}" y="22" font-size="14" font-weight="bold">${esc(title)}</text>`);
  for (const s of [0.1, 1, 10, 100, 1000]) {
    parts.push(`<line x1="${x(s)}" y1="${T}" x2="${x(s)}" y2="${H - B}" stroke="#ddd"/>`);
    parts.push(`<text x="${x(s)}" y="${H - B + 16}" text-anchor="middle">${s} s</text>`);
  }
  for (const f of [0, 0.25, 0.5, 0.75, 0.95, 1]) {
    parts.push(`<line x1="${L}" y1="${y(f)}" x2="${W - R}" y2="${y(f)}" stroke="#eee"/>`);
    parts.push(`<text x="${L - 6}" y="${y(f) + 4}" text-anchor="end">${Math.round(f * 100)}%</text>`);
  }
  parts.push(`<text x="${(L + W - R) / 2}" y="${H - 12}" text-anchor="middle">time to first token (log scale); unanswered requests never reach the top</text>`);
  runs.forEach((run, i) => {
    const rs = run.requests.filter(pick);
    const vals = rs
      .filter((r) => r.ttftMs !== null)
      .map((r) => r.ttftMs! / 1000)
      .sort((a, b) => a - b);
    if (rs.length === 0) return;
    const pts = vals.map((v, k) => `${x(v).toFixed(1)},${y((k + 1) / rs.length).toFixed(1)}`);
    const color = COLORS[i % COLORS.length]!;
    parts.push(`<polyline fill="none" stroke="${color}" stroke-width="2" points="${x(minS)},${y(0)} ${pts.join(' ')}"/>`);
    parts.push(`<rect x="${W - R + 12}" y="${T + i * 20}" width="14" height="4" fill="${color}"/>`);
    parts.push(`<text x="${W - R + 32}" y="${T + i * 20 + 6}">${esc(run.policy)}</text>`);
  });
  parts.push('</svg>');
  return parts.join('\n');
}

/** Requests in flight per node over time, one panel per run; darker is busier, the scale tops out at `maxLoad`. */
export function loadHeatmap(runs: readonly RunResult[], nodes: readonly string[], maxLoad = 8): string {
  const cell = 4;
  const rowH = 10;
  const labelW = 80;
  const panelGap = 30;
  const cols = Math.max(...runs.map((r) => Math.max(...[...r.load.values()].map((v) => v.length))));
  const panelH = nodes.length * rowH + 20;
  const W = labelW + cols * cell + 20;
  const H = 40 + runs.length * (panelH + panelGap);
  const parts: string[] = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="9">`);
  parts.push(`<rect width="${W}" height="${H}" fill="white"/>`);
  parts.push(
    `<text x="6" y="18" font-size="13" font-weight="bold">Requests in flight per node, sampled every ${LOAD_SAMPLE_MS / 1000} s (white 0, black ${maxLoad} or more)</text>`,
  );
  runs.forEach((run, p) => {
    const top = 40 + p * (panelH + panelGap);
    parts.push(`<text x="6" y="${top + 8}" font-size="11" font-weight="bold">${esc(run.policy)}</text>`);
    nodes.forEach((n, i) => {
      const yy = top + 14 + i * rowH;
      parts.push(`<text x="${labelW - 4}" y="${yy + rowH - 2}" text-anchor="end">${esc(n)}</text>`);
      const series = run.load.get(n) ?? [];
      const shadeOf = (v: number) => Math.round(255 * (1 - Math.min(1, v / maxLoad)));
      // Runs of one shade are one rectangle, which keeps the file small.
      for (let k = 0; k < series.length;) {
        const shade = shadeOf(series[k]!);
        let end = k + 1;
        while (end < series.length && shadeOf(series[end]!) === shade) end++;
        if (shade < 255)
          parts.push(`<rect x="${labelW + k * cell}" y="${yy}" width="${(end - k) * cell}" height="${rowH - 1}" fill="rgb(${shade},${shade},${shade})"/>`);
        k = end;
      }
    });
  });
  parts.push('</svg>');
  return parts.join('\n');
}

/** Grouped bars: mean and p95 long-prompt TTFT per policy, seconds. */
export function summaryBars(rows: readonly { policy: string; meanS: number | null; p95S: number | null }[], title: string): string {
  const W = 760;
  const H = 360;
  const L = 60;
  const B = 90;
  const T = 40;
  const max = Math.max(1, ...rows.flatMap((r) => [r.meanS ?? 0, r.p95S ?? 0]));
  const bw = (W - L - 20) / rows.length;
  const y = (v: number) => T + (1 - v / max) * (H - T - B);
  const parts: string[] = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="11">`);
  parts.push(`<rect width="${W}" height="${H}" fill="white"/>`);
  parts.push(`<text x="${L}" y="22" font-size="14" font-weight="bold">${esc(title)}</text>`);
  parts.push(`<rect x="${W - 200}" y="12" width="12" height="10" fill="#1f77b4"/><text x="${W - 184}" y="21">mean</text>`);
  parts.push(`<rect x="${W - 130}" y="12" width="12" height="10" fill="#ff7f0e"/><text x="${W - 114}" y="21">p95</text>`);
  for (let k = 0; k <= 4; k++) {
    const v = (max * k) / 4;
    parts.push(
      `<line x1="${L}" y1="${y(v)}" x2="${W - 20}" y2="${y(v)}" stroke="#eee"/><text x="${L - 6}" y="${y(v) + 4}" text-anchor="end">${v.toFixed(0)} s</text>`,
    );
  }
  rows.forEach((r, i) => {
    const x0 = L + i * bw + bw * 0.15;
    const w = bw * 0.33;
    if (r.meanS !== null) parts.push(`<rect x="${x0}" y="${y(r.meanS)}" width="${w}" height="${y(0) - y(r.meanS)}" fill="#1f77b4"/>`);
    if (r.p95S !== null) parts.push(`<rect x="${x0 + w}" y="${y(r.p95S)}" width="${w}" height="${y(0) - y(r.p95S)}" fill="#ff7f0e"/>`);
    parts.push(`<text transform="translate(${x0 + w},${H - B + 14}) rotate(30)" text-anchor="start">${esc(r.policy)}</text>`);
  });
  parts.push('</svg>');
  return parts.join('\n');
}
