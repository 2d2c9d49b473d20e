/**
 * bench/fleet validation (issue 16, item 4): three real Hubs with simulated engines replay a
 * short slice of the benchmark's trace, the discrete-event simulator runs the same slice on the
 * same three nodes, and the run reports how far the prediction was from what the Hubs did.
 *
 *   npm run bench:fleet:validate -- [--fleet FILE] [--workload FILE] [--seed N] [--time-scale X]
 *                                   [--window-s S] [--max-turns N] [--policies a,b] [--repeats N] [--out FILE]
 *
 * Only the Hub Pool policies run: the real Hubs cannot be made to place like round-robin,
 * least-connections, SmartRouter or the oracle. Prints markdown tables (the ones in
 * bench/fleet/README.md) and writes every request on both sides to bench/results/.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_SETTINGS } from '../../../src/config/settings-schema.js';
import { readFleet, readWorkload } from '../data-files.js';
import { AFFINITY_AND_SLOTS } from '../policies/all.js';
import { hubPool } from '../policies/hub-pool.js';
import { simulate } from '../simulate.js';
import { buildTrace } from '../trace.js';
import { compare, type Comparison, type ErrorSpread } from './compare.js';
import { REPLAY_POLL_SECONDS, replay, tiersByNode } from './replay.js';
import { sliceTrace } from './slice.js';

const REPO_ROOT = resolve(import.meta.dirname, '../../../..');
/** A replay that needs more wall time than this is wedged, not slow. */
const MAX_REPLAY_WALL_MS = 10 * 60_000;

/** The policies the Hubs can run, with the settings that make them so (the same as the main run's). */
const VALIDATED = [
  { key: 'hub-pool-defaults', settings: {} },
  { key: 'hub-pool-affinity-slots', settings: AFFINITY_AND_SLOTS },
] as const;

const { values } = parseArgs({
  options: {
    fleet: { type: 'string', default: join(REPO_ROOT, 'bench/fleet/data/fleet-validate.json') },
    workload: { type: 'string', default: join(REPO_ROOT, 'bench/fleet/data/workload.json') },
    seed: { type: 'string' },
    'time-scale': { type: 'string', default: '0.1' },
    'window-s': { type: 'string', default: '600' },
    'max-turns': { type: 'string', default: '5' },
    policies: { type: 'string' },
    repeats: { type: 'string', default: '1' },
    out: { type: 'string' },
  },
});

const fleet = readFleet(values.fleet!);
const workload = readWorkload(values.workload!);
const seed = values.seed === undefined ? workload.seed : Number(values.seed);
const timeScale = Number(values['time-scale']);
if (!(timeScale > 0 && timeScale <= 1)) throw new Error(`--time-scale must be in (0, 1], not ${values['time-scale']}`);
const nodes = fleet.nodes.map((n) => n.name);
const slice = sliceTrace(buildTrace(workload, seed), { nodes, windowMs: Number(values['window-s']) * 1000, maxTurns: Number(values['max-turns']) });
/** The Hubs poll every REPLAY_POLL_SECONDS of wall time; the simulator is given the same interval in its own time. */
const simPollSeconds = REPLAY_POLL_SECONDS / timeScale;
const wanted = values.policies?.split(',');
/** Replays per policy: from the second on, each is compared with the first, which measures how far two replays of one slice drift apart. */
const repeats = Number(values.repeats);
if (!Number.isInteger(repeats) || repeats < 1 || repeats > 5) throw new Error(`--repeats must be a whole number from 1 to 5, not ${values.repeats}`);
const say = (s = '') => process.stdout.write(`${s}\n`);
const secs = (ms: number | null) => (ms === null ? '-' : (ms / 1000).toFixed(1));
const pct = (x: number | null) => (x === null ? '-' : `${(x * 100).toFixed(0)}%`);

say(`# bench/fleet validation — ${new Date().toISOString()}`);
say(
  `fleet ${nodes.join(', ')}; seed ${seed}; slice: sessions starting in the first ${values['window-s']} s, first ${values['max-turns']} turns, chat in the window, no embeddings: ${slice.sessions.length} sessions, ${slice.requestCount} requests; time scale ${timeScale}; health poll ${REPLAY_POLL_SECONDS} s wall = ${simPollSeconds} s simulated; node ${process.version}, ${cpus().length} cpus, load average ${loadavg()[0]!.toFixed(1)} at start`,
);
say();

/**
 * The two ways the simulator can run the Hubs: as the main benchmark does (every engine reached
 * as a peer, the entry's own included) and with each entry Hub's own engine local, as the real
 * Hubs have it.
 */
const VARIANTS = [
  { key: 'as benchmarked (every engine a peer)', localEntry: false },
  { key: 'entry engine local', localEntry: true },
] as const;

interface Row {
  readonly policy: string;
  readonly simulator: string;
  readonly tiers: Readonly<Record<string, string | null>>;
  readonly wallMs: number;
  readonly comparison: Comparison;
  readonly real: unknown;
  readonly predicted: unknown;
}
const rows: Row[] = [];
/** Later replays of a policy against its first: the real side's own spread. */
const replayDrift: { policy: string; repeat: number; comparison: Comparison; wallMs: number }[] = [];
for (const p of VALIDATED.filter((x) => wanted === undefined || wanted.includes(x.key))) {
  process.stderr.write(`  ${p.key}: replaying through three Hubs…\n`);
  const real = await replay({ fleet, trace: slice, timeScale, settings: p.settings, maxWallMs: MAX_REPLAY_WALL_MS });
  process.stderr.write(`  ${p.key}: ${real.requests.length} requests in ${(real.wallMs / 1000).toFixed(0)} s wall; tiers ${JSON.stringify(real.tiers)}\n`);
  for (const v of VARIANTS) {
    const factory = hubPool({
      name: p.key,
      settings: { ...DEFAULT_SETTINGS, ...p.settings, poolHealthPollSeconds: simPollSeconds },
      tiers: { byNode: tiersByNode(real.tiers) },
      localEntry: v.localEntry,
    });
    const predicted = simulate(fleet, slice, factory, seed);
    rows.push({
      policy: p.key,
      simulator: v.key,
      tiers: real.tiers,
      wallMs: real.wallMs,
      comparison: compare(predicted.requests, real.requests, nodes),
      real: real.requests,
      predicted: predicted.requests,
    });
  }
  for (let i = 2; i <= repeats; i++) {
    process.stderr.write(`  ${p.key}: replay ${i} of ${repeats}…\n`);
    const again = await replay({ fleet, trace: slice, timeScale, settings: p.settings, maxWallMs: MAX_REPLAY_WALL_MS });
    replayDrift.push({ policy: p.key, repeat: i, comparison: compare(again.requests, real.requests, nodes), wallMs: again.wallMs });
  }
}

const spreadCells = (s: ErrorSpread) => `${pct(s.mean)} | ${pct(s.p50)} | ${pct(s.p95)}`;
say('## Time to first token, request by request: |predicted − real| / real');
say(
  '| policy | simulator | paired | unpaired | mean | p50 | p95 | long: mean / p95 (n) | short: mean / p95 (n) | bias (mean signed) | absolute error mean / p95 (s) | mean TTFT predicted / real (s) | same node both sides | same node: mean / p95 |',
);
say('| --- | --- | ---: | ---: | ---: | ---: | ---: | --- | --- | ---: | --- | --- | ---: | --- |');
for (const r of rows) {
  const c = r.comparison;
  say(
    `| ${r.policy} | ${r.simulator} | ${c.pairs.length} | ${c.unpaired} | ${spreadCells(c.relative.all)} | ${pct(c.relative.long.mean)} / ${pct(c.relative.long.p95)} (${c.relative.long.count}) | ${pct(c.relative.short.mean)} / ${pct(c.relative.short.p95)} (${c.relative.short.count}) | ${c.bias === null ? '-' : `${c.bias >= 0 ? '+' : ''}${(c.bias * 100).toFixed(0)}%`} | ${secs(c.absoluteMs.mean)} / ${secs(c.absoluteMs.p95)} | ${secs(c.predictedMeanMs)} / ${secs(c.realMeanMs)} | ${pct(c.samePlaceShare)} | ${pct(c.samePlaceRelative.mean)} / ${pct(c.samePlaceRelative.p95)} (${c.samePlaceRelative.count}) |`,
  );
}
say();
say('## Requests served per node: predicted / real');
say(`| policy | simulator | ${nodes.join(' | ')} | mean relative error |`);
say(`| --- | --- | ${nodes.map(() => '---:').join(' | ')} | ---: |`);
for (const r of rows) {
  const c = r.comparison;
  say(`| ${r.policy} | ${r.simulator} | ${c.perNode.map((n) => `${n.predicted} / ${n.real}`).join(' | ')} | ${pct(c.perNodeMeanRelativeError)} |`);
}
say();

if (replayDrift.length > 0) {
  say('## One replay against another (the real side’s own spread): |replay n − replay 1| / replay 1');
  say(
    '| policy | replay | paired | mean | p50 | p95 | absolute error mean / p95 (s) | mean TTFT replay n / replay 1 (s) | same node both times | per node, replay n / replay 1 | mean relative error per node |',
  );
  say('| --- | ---: | ---: | ---: | ---: | ---: | --- | --- | ---: | --- | ---: |');
  for (const d of replayDrift) {
    const c = d.comparison;
    say(
      `| ${d.policy} | ${d.repeat} | ${c.pairs.length} | ${spreadCells(c.relative.all)} | ${secs(c.absoluteMs.mean)} / ${secs(c.absoluteMs.p95)} | ${secs(c.predictedMeanMs)} / ${secs(c.realMeanMs)} | ${pct(c.samePlaceShare)} | ${c.perNode.map((n) => `${n.predicted} / ${n.real}`).join(', ')} | ${pct(c.perNodeMeanRelativeError)} |`,
    );
  }
  say();
}

const out = values.out ?? join(REPO_ROOT, 'bench/results', `fleet-validate-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
mkdirSync(resolve(out, '..'), { recursive: true });
writeFileSync(
  out,
  JSON.stringify(
    {
      seed,
      fleet: values.fleet,
      workload: values.workload,
      timeScale,
      windowS: Number(values['window-s']),
      maxTurns: Number(values['max-turns']),
      replayPollSeconds: REPLAY_POLL_SECONDS,
      simPollSeconds,
      runs: rows,
      replayDrift,
    },
    null,
    2,
  ),
);
say(`figures and every request on both sides in ${out}`);
