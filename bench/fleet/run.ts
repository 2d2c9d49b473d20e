/**
 * bench/fleet: Hub Pool's placement against the routers people use today and against an
 * oracle, on one simulated fleet and one trace (see README.md beside this file).
 *
 *   npm run bench:fleet -- [--fleet FILE] [--workload FILE] [--seed N] [--policies a,b]
 *                          [--no-ablation] [--scale 50,200 | --no-scale] [--charts DIR] [--out FILE]
 *
 * Prints markdown tables (the ones pasted in the README), writes the SVG charts to --charts
 * (bench/fleet/charts by default) and every figure to bench/results/fleet-<date>.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { cpus } from 'node:os';
import { STEPS } from '../../src/placement/pipeline.js';
import { muchSlowerStep } from '../../src/placement/steps/much-slower.js';
import { contentionFreeBounds } from './bound.js';
import { readFleet, readWorkload } from './data-files.js';
import { publishedTier } from './hardware.js';
import { summarize, type Distribution, type PolicySummary } from './metrics.js';
import { AFFINITY_AND_SLOTS, POLICIES } from './policies/all.js';
import { hubPool } from './policies/hub-pool.js';
import { pollTraffic, scaleFleet, scaleWorkload } from './scale.js';
import { simulate, type RunResult } from './simulate.js';
import { loadHeatmap, summaryBars, ttftCdf } from './svg.js';
import { buildTrace } from './trace.js';

const REPO_ROOT = resolve(import.meta.dirname, '../../..');
/** The issue's goals, reported against and never asserted. */
const GOAL_MEAN_VS_ORACLE = 1.15;
const GOAL_P95_LONG_FACTOR = 3;

const { values } = parseArgs({
  options: {
    fleet: { type: 'string', default: join(REPO_ROOT, 'bench/fleet/data/fleet.json') },
    workload: { type: 'string', default: join(REPO_ROOT, 'bench/fleet/data/workload.json') },
    seed: { type: 'string' },
    policies: { type: 'string' },
    'no-ablation': { type: 'boolean', default: false },
    scale: { type: 'string', default: '50,200' },
    'no-scale': { type: 'boolean', default: false },
    charts: { type: 'string', default: join(REPO_ROOT, 'bench/fleet/charts') },
    out: { type: 'string' },
  },
});

const fleet = readFleet(values.fleet!);
const workload = readWorkload(values.workload!);
const seed = values.seed === undefined ? workload.seed : Number(values.seed);
const nodes = fleet.nodes.map((n) => n.name);
const trace = buildTrace(workload, seed);
const say = (s = '') => process.stdout.write(`${s}\n`);
const secs = (ms: number | null) => (ms === null ? '-' : (ms / 1000).toFixed(1));

say(`# bench/fleet — ${new Date().toISOString()}`);
say(
  `fleet ${nodes.length} nodes, ${trace.sessions.length} agent sessions, ${trace.requestCount} requests, seed ${seed}; node ${process.version}, ${cpus().length} cpus`,
);
say(`hardwareTier published: ${fleet.nodes.map((n) => `${n.name} ${publishedTier(n) ?? 'none'}`).join(', ')}`);
say();

const wanted = values.policies?.split(',');
const runs: RunResult[] = [];
for (const p of POLICIES.filter((x) => wanted === undefined || wanted.includes(x.key))) {
  const t0 = performance.now();
  const run = simulate(fleet, trace, p.factory, seed);
  runs.push(run);
  process.stderr.write(
    `  ${p.key}: ${run.events} events, simulated ${(run.endMs / 60000).toFixed(0)} min in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
  );
}
const cpuNodes = new Set(fleet.nodes.filter((n) => !n.gpu).map((n) => n.name));
const summaries = runs.map((r) => summarize(r, nodes, cpuNodes));

const distRow = (name: string, d: Distribution) => `| ${name} | ${d.count} | ${secs(d.meanMs)} | ${secs(d.p50Ms)} | ${secs(d.p95Ms)} | ${secs(d.p99Ms)} |`;
say('## Time to first token, long prompts (≥ 6,144 estimated tokens), seconds');
say('| policy | answered | mean | p50 | p95 | p99 |');
say('| --- | ---: | ---: | ---: | ---: | ---: |');
for (const s of summaries) say(distRow(s.policy, s.long));
say();
say('## Time to first token, short prompts (chat and agent calls under 6,144), seconds');
say('| policy | answered | mean | p50 | p95 | p99 |');
say('| --- | ---: | ---: | ---: | ---: | ---: |');
for (const s of summaries) say(distRow(s.policy, s.short));
say();
say('## What went wrong on the way');
say(
  '| policy | requests | no usable answer | placeholder answers | app retries | missed first-byte deadlines | requests failed over | long prompts served on CPU | re-prefilled tokens | cached tokens | model loads | placement threw | run ends (min) |',
);
say('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const s of summaries) {
  say(
    `| ${s.policy} | ${s.requests} | ${s.failed} | ${s.badAnswers} | ${s.appRetries} | ${s.deadlinesMissed} | ${s.failovers} | ${s.longOnCpu} | ${s.reprefilledTokens.toLocaleString('en-US')} | ${s.cachedTokens.toLocaleString('en-US')} | ${s.engineLoads} | ${s.placementErrors ?? '-'} | ${(s.endMs / 60000).toFixed(0)} |`,
  );
}
say();
say('## Chat and agent calls served per node (embeddings left out)');
say(`| policy | ${nodes.join(' | ')} |`);
say(`| --- | ${nodes.map(() => '---:').join(' | ')} |`);
for (const s of summaries) say(`| ${s.policy} | ${nodes.map((n) => s.perNode[n] ?? 0).join(' | ')} |`);
say();

/** Each chat and agent call's contention-free bound (bound.ts), by id. */
const boundById = contentionFreeBounds(trace, fleet);
const bounds = runs.map((run) => {
  const answered = run.requests.filter((r) => r.kind !== 'embed' && r.ttftMs !== null);
  // The bound does not hold for an answer that came after a placeholder answer (bound.ts): those are counted apart.
  const compared = answered.filter((r) => r.badAnswers === 0);
  const ratio = (rs: typeof answered) => {
    if (rs.length === 0) return null;
    const ttft = rs.reduce((n, r) => n + r.ttftMs!, 0) / rs.length;
    const bound = rs.reduce((n, r) => n + boundById.get(r.id)!, 0) / rs.length;
    return { meanTtftMs: ttft, meanBoundMs: bound, ratio: ttft / bound };
  };
  return {
    policy: run.policy,
    afterPlaceholders: answered.length - compared.length,
    all: ratio(compared),
    long: ratio(compared.filter((r) => r.long)),
    short: ratio(compared.filter((r) => !r.long)),
  };
});
say('## Against a lower bound: mean TTFT over the mean contention-free bound of the same answered calls (bound.ts)');
say(
  '| policy | all: mean / bound (s) | all: ratio | long: mean / bound (s) | long: ratio | short: mean / bound (s) | short: ratio | left out (answered after a placeholder answer) |',
);
say('| --- | --- | ---: | --- | ---: | --- | ---: | ---: |');
const ratioCell = (x: { meanTtftMs: number; meanBoundMs: number; ratio: number } | null) =>
  x === null ? '- | -' : `${secs(x.meanTtftMs)} / ${secs(x.meanBoundMs)} | ${x.ratio.toFixed(2)}x`;
for (const b of bounds) say(`| ${b.policy} | ${ratioCell(b.all)} | ${ratioCell(b.long)} | ${ratioCell(b.short)} | ${b.afterPlaceholders} |`);
say();

const by = (name: string) => summaries.find((s) => s.policy === name);
const goals: Record<string, unknown>[] = [];
const oracleS = by('oracle');
say('## Goals (reported, not asserted)');
for (const name of ['hub-pool-defaults', 'hub-pool-affinity-slots']) {
  const s = by(name);
  if (s === undefined) continue;
  if (oracleS?.all.meanMs != null && s.all.meanMs !== null) {
    const ratio = s.all.meanMs / oracleS.all.meanMs;
    goals.push({ policy: name, goal: 'mean TTFT within 1.15x of oracle', ratio });
    say(
      `- ${name}: mean TTFT ${secs(s.all.meanMs)} s against the oracle's ${secs(oracleS.all.meanMs)} s = ${ratio.toFixed(2)}x (goal ≤ ${GOAL_MEAN_VS_ORACLE}x): ${ratio <= GOAL_MEAN_VS_ORACLE ? 'met' : 'missed'}`,
    );
  }
  for (const base of ['least-connections', 'round-robin']) {
    const b = by(base);
    if (b?.long.p95Ms == null || s.long.p95Ms === null) continue;
    const factor = b.long.p95Ms / s.long.p95Ms;
    goals.push({ policy: name, goal: `p95 long TTFT ≥3x better than ${base}`, factor });
    say(
      `- ${name}: p95 long-prompt TTFT ${secs(s.long.p95Ms)} s against ${base}'s ${secs(b.long.p95Ms)} s = ${factor.toFixed(2)}x better (goal ≥ ${GOAL_P95_LONG_FACTOR}x): ${factor >= GOAL_P95_LONG_FACTOR ? 'met' : 'missed'}`,
    );
  }
}
say();

let ablation: { without: string; summary: PolicySummary }[] = [];
if (!values['no-ablation']) {
  say('## Which rule carries what: hub-pool-affinity-slots with one step taken out');
  say(
    '| without | mean TTFT | p95 long | p99 long | p95 short | missed deadlines | re-prefilled tokens | no usable answer | placeholder answers | placement threw |',
  );
  say('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  const full = by('hub-pool-affinity-slots');
  const row = (label: string, s: PolicySummary) =>
    say(
      `| ${label} | ${secs(s.all.meanMs)} | ${secs(s.long.p95Ms)} | ${secs(s.long.p99Ms)} | ${secs(s.short.p95Ms)} | ${s.deadlinesMissed} | ${s.reprefilledTokens.toLocaleString('en-US')} | ${s.failed} | ${s.badAnswers} | ${s.placementErrors ?? '-'} |`,
    );
  if (full) row('(nothing: all steps)', full);
  ablation = STEPS.map((step) => {
    // The much-slower rule writes the throughput record, so its key is not its name.
    const label = step === muchSlowerStep ? 'much-slower' : step.key;
    const factory = hubPool({ name: `without-${label}`, settings: AFFINITY_AND_SLOTS, steps: STEPS.filter((s) => s !== step) });
    const summary = summarize(simulate(fleet, trace, factory, seed), nodes, cpuNodes);
    row(label, summary);
    return { without: label, summary };
  });
  const noTiers = summarize(simulate(fleet, trace, hubPool({ name: 'no-tiers', settings: AFFINITY_AND_SLOTS, tiers: 'none' }), seed), nodes, cpuNodes);
  row('(all steps, no node publishes a hardwareTier: the build before tier detection)', noTiers);
  ablation.push({ without: 'no-tiers', summary: noTiers });
  const servingTiers = summarize(
    simulate(fleet, trace, hubPool({ name: 'what-if-serving-tier', settings: AFFINITY_AND_SLOTS, tiers: 'serving' }), seed),
    nodes,
    cpuNodes,
  );
  row('(all steps, and every CPU-served node publishes cpu-only, core-7 too: a what-if)', servingTiers);
  ablation.push({ without: 'what-if-serving-tier', summary: servingTiers });
  const central = summarize(
    simulate(fleet, trace, hubPool({ name: 'what-if-single-entry', settings: AFFINITY_AND_SLOTS, singleEntry: true }), seed),
    nodes,
    cpuNodes,
  );
  row('(all steps, every request entering through one Hub that sees all work live: a what-if)', central);
  ablation.push({ without: 'what-if-single-entry', summary: central });
  say();
}

const scale: Record<string, unknown>[] = [];
if (!values['no-scale']) {
  say('## Scale on paper: hub-pool-affinity-slots on larger copies of the fleet');
  say(
    '| nodes | requests | placement CPU per request (µs) | placement threw | health polls per node per minute (out / in) | capabilities body (bytes) | poll bodies per node per minute (KB in / out) | wall time (s) |',
  );
  say('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const n of [fleet.nodes.length, ...values.scale!.split(',').map(Number)]) {
    const f = scaleFleet(fleet, n);
    const w = scaleWorkload(workload, fleet, n);
    const t = buildTrace(w, seed);
    const cpu = { us: 0, placements: 0 };
    const t0 = performance.now();
    const scaled = simulate(f, t, hubPool({ name: `scale-${n}`, settings: AFFINITY_AND_SLOTS, cpu }), seed);
    const wall = (performance.now() - t0) / 1000;
    const traffic = pollTraffic(f, n);
    const perReq = cpu.us / Math.max(1, cpu.placements);
    scale.push({ ...traffic, requests: t.requestCount, placementCpuUsPerRequest: perReq, placementErrors: scaled.extra.placementErrors ?? 0, wallS: wall });
    say(
      `| ${n} | ${t.requestCount} | ${perReq.toFixed(0)} | ${scaled.extra.placementErrors ?? 0} | ${traffic.pollsOutPerMinute} / ${traffic.pollsInPerMinute} | ${traffic.bodyBytes} | ${(traffic.bytesInPerMinute / 1024).toFixed(0)} / ${(traffic.bytesOutPerMinute / 1024).toFixed(0)} | ${wall.toFixed(1)} |`,
    );
  }
  say();
}

mkdirSync(values.charts!, { recursive: true });
writeFileSync(
  join(values.charts!, 'ttft-long.svg'),
  ttftCdf(runs, (r) => r.kind !== 'embed' && r.long, 'Time to first token, long prompts (≥ 6,144 tokens): share answered within'),
);
writeFileSync(
  join(values.charts!, 'ttft-short.svg'),
  ttftCdf(runs, (r) => r.kind !== 'embed' && !r.long, 'Time to first token, short prompts: share answered within'),
);
writeFileSync(join(values.charts!, 'load-per-node.svg'), loadHeatmap(runs, nodes));
writeFileSync(
  join(values.charts!, 'long-mean-p95.svg'),
  summaryBars(
    summaries.map((s) => ({
      policy: s.policy,
      meanS: s.long.meanMs === null ? null : s.long.meanMs / 1000,
      p95S: s.long.p95Ms === null ? null : s.long.p95Ms / 1000,
    })),
    'Long-prompt time to first token: mean and p95, seconds',
  ),
);
const out = values.out ?? join(REPO_ROOT, 'bench/results', `fleet-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
mkdirSync(resolve(out, '..'), { recursive: true });
writeFileSync(
  out,
  JSON.stringify(
    {
      seed,
      fleet: values.fleet,
      workload: values.workload,
      summaries,
      bounds,
      goals,
      ablation: ablation.map((a) => ({ without: a.without, ...a.summary })),
      scale,
    },
    null,
    2,
  ),
);
say(`charts in ${values.charts}; figures in ${out}`);
