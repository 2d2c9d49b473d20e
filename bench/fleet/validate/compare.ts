/**
 * How far the discrete-event prediction was from what the real Hubs did on the same slice:
 * request by request (time to first token) and node by node (requests served). Pure: it reads
 * two lists of results and returns the figures.
 */
import { percentile } from '../metrics.js';

/** One request as either side saw it. */
export interface Observed {
  readonly id: string;
  readonly kind: 'agent' | 'chat' | 'embed';
  readonly long: boolean;
  /** Simulated ms; null when no usable answer came. */
  readonly ttftMs: number | null;
  readonly servedBy: string | null;
}

/** Spread of an error over the paired requests; null when no request was paired. */
export interface ErrorSpread {
  readonly count: number;
  readonly mean: number | null;
  readonly p50: number | null;
  readonly p95: number | null;
}

export interface RequestPair {
  readonly id: string;
  readonly long: boolean;
  readonly predictedMs: number;
  readonly realMs: number;
  readonly samePlace: boolean;
}

export interface NodeCount {
  readonly node: string;
  readonly predicted: number;
  readonly real: number;
  /** |predicted - real| / real; null when the real Hubs sent the node nothing. */
  readonly relativeError: number | null;
}

export interface Comparison {
  /** Requests answered on both sides, paired by id. */
  readonly pairs: readonly RequestPair[];
  /** Requests answered on one side only. */
  readonly unpaired: number;
  /** |predicted - real| / real TTFT, over every pair, and for long and short prompts apart. */
  readonly relative: { readonly all: ErrorSpread; readonly long: ErrorSpread; readonly short: ErrorSpread };
  /**
   * The same, over the pairs both sides served on the same node: there the placements agreed, so
   * what is left is the engine model, queueing behind other work, and timing.
   */
  readonly samePlaceRelative: ErrorSpread;
  /** |predicted - real| TTFT in simulated ms: what the relative figure hides on sub-second answers. */
  readonly absoluteMs: ErrorSpread;
  /** Mean of (predicted - real) / real: above 0, the simulator predicted slower answers than the Hubs gave. */
  readonly bias: number | null;
  /** Share of pairs served by the same node on both sides. */
  readonly samePlaceShare: number | null;
  readonly perNode: readonly NodeCount[];
  /** Mean relative error of the per-node counts over the nodes the real Hubs used. */
  readonly perNodeMeanRelativeError: number | null;
  readonly predictedMeanMs: number | null;
  readonly realMeanMs: number | null;
}

function spread(values: readonly number[]): ErrorSpread {
  if (values.length === 0) return { count: 0, mean: null, p50: null, p95: null };
  const sorted = [...values].sort((a, b) => a - b);
  return { count: values.length, mean: values.reduce((s, v) => s + v, 0) / values.length, p50: percentile(sorted, 50), p95: percentile(sorted, 95) };
}

const mean = (values: readonly number[]) => (values.length === 0 ? null : values.reduce((s, v) => s + v, 0) / values.length);

export function compare(predicted: readonly Observed[], real: readonly Observed[], nodes: readonly string[]): Comparison {
  const chat = (o: Observed) => o.kind !== 'embed';
  const realById = new Map(real.filter(chat).map((o) => [o.id, o]));
  const pairs: RequestPair[] = [];
  let unpaired = 0;
  for (const p of predicted.filter(chat)) {
    const r = realById.get(p.id);
    if (r === undefined || p.ttftMs === null || r.ttftMs === null || r.ttftMs <= 0) {
      unpaired++;
      continue;
    }
    pairs.push({ id: p.id, long: p.long, predictedMs: p.ttftMs, realMs: r.ttftMs, samePlace: p.servedBy === r.servedBy });
  }
  unpaired += [...realById.keys()].filter((id) => !predicted.some((p) => p.id === id)).length;
  const rel = (x: RequestPair) => Math.abs(x.predictedMs - x.realMs) / x.realMs;
  const perNode = nodes.map((node) => {
    const p = predicted.filter((o) => chat(o) && o.ttftMs !== null && o.servedBy === node).length;
    const r = real.filter((o) => chat(o) && o.ttftMs !== null && o.servedBy === node).length;
    return { node, predicted: p, real: r, relativeError: r === 0 ? null : Math.abs(p - r) / r };
  });
  return {
    pairs,
    unpaired,
    relative: { all: spread(pairs.map(rel)), long: spread(pairs.filter((x) => x.long).map(rel)), short: spread(pairs.filter((x) => !x.long).map(rel)) },
    samePlaceRelative: spread(pairs.filter((x) => x.samePlace).map(rel)),
    absoluteMs: spread(pairs.map((x) => Math.abs(x.predictedMs - x.realMs))),
    bias: mean(pairs.map((x) => (x.predictedMs - x.realMs) / x.realMs)),
    samePlaceShare: pairs.length === 0 ? null : pairs.filter((x) => x.samePlace).length / pairs.length,
    perNode,
    perNodeMeanRelativeError: mean(perNode.flatMap((n) => (n.relativeError === null ? [] : [n.relativeError]))),
    predictedMeanMs: mean(pairs.map((x) => x.predictedMs)),
    realMeanMs: mean(pairs.map((x) => x.realMs)),
  };
}
