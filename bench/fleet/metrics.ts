/** The figures each run is reported by. Pure over the run's request records. */
import type { RequestResult, RunResult } from './simulate.js';

export interface Distribution {
  readonly count: number;
  /** null when nothing was answered in the class. */
  readonly meanMs: number | null;
  readonly p50Ms: number | null;
  readonly p95Ms: number | null;
  readonly p99Ms: number | null;
}

export interface PolicySummary {
  readonly policy: string;
  readonly long: Distribution;
  readonly short: Distribution;
  readonly all: Distribution;
  readonly requests: number;
  /** Requests with no usable answer after the app's retries. */
  readonly failed: number;
  /** Placeholder answers received, retried ones included. */
  readonly badAnswers: number;
  readonly appRetries: number;
  /** Long prompts whose answer came from a CPU-served node. */
  readonly longOnCpu: number;
  readonly deadlinesMissed: number;
  /** Requests that needed more than one attempt. */
  readonly failovers: number;
  readonly reprefilledTokens: number;
  readonly cachedTokens: number;
  /** Chat and agent calls served per node (embeddings left out: they are cheap everywhere and would drown the rest). */
  readonly perNode: Readonly<Record<string, number>>;
  readonly engineLoads: number;
  /** Requests whose placement threw (the Hub policies only); null for a policy that does not run the pipeline. */
  readonly placementErrors: number | null;
  readonly endMs: number;
}

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

export function distribution(values: readonly number[]): Distribution {
  const sorted = [...values].sort((a, b) => a - b);
  const mean = sorted.length === 0 ? null : sorted.reduce((a, b) => a + b, 0) / sorted.length;
  return { count: sorted.length, meanMs: mean, p50Ms: percentile(sorted, 50), p95Ms: percentile(sorted, 95), p99Ms: percentile(sorted, 99) };
}

const ttfts = (rs: readonly RequestResult[]) => rs.filter((r) => r.ttftMs !== null).map((r) => r.ttftMs!);

export function summarize(run: RunResult, nodes: readonly string[], cpuNodes: ReadonlySet<string> = new Set()): PolicySummary {
  const rs = run.requests;
  const completions = rs.filter((r) => r.kind !== 'embed');
  const perNode: Record<string, number> = Object.fromEntries(nodes.map((n) => [n, 0]));
  for (const r of completions) if (r.servedBy !== null) perNode[r.servedBy] = (perNode[r.servedBy] ?? 0) + 1;
  return {
    policy: run.policy,
    long: distribution(ttfts(completions.filter((r) => r.long))),
    short: distribution(ttfts(completions.filter((r) => !r.long))),
    all: distribution(ttfts(completions)),
    requests: rs.length,
    failed: rs.filter((r) => r.outcome !== 'ok').length,
    badAnswers: rs.reduce((n, r) => n + r.badAnswers, 0),
    appRetries: rs.reduce((n, r) => n + r.appRetries, 0),
    longOnCpu: completions.filter((r) => r.long && r.outcome === 'ok' && r.servedBy !== null && cpuNodes.has(r.servedBy)).length,
    deadlinesMissed: rs.reduce((n, r) => n + r.deadlinesMissed, 0),
    failovers: rs.filter((r) => r.attempts > 1).length,
    reprefilledTokens: rs.reduce((n, r) => n + r.reprefilled, 0),
    cachedTokens: rs.reduce((n, r) => n + r.cachedTokens, 0),
    perNode,
    engineLoads: [...run.loads.values()].reduce((a, b) => a + b, 0),
    placementErrors: run.extra.placementErrors ?? null,
    endMs: run.endMs,
  };
}
