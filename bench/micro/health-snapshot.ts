/**
 * Micro-benchmark of BackendHealth.read() when the snapshot is fresh (poolProbeSnapshotTtlMs
 * above 0, the case the proxy benchmark measures): no probe runs, so this is the cost of
 * handing placement the engine views.
 *
 *   npx tsc -p . && node --expose-gc dist/bench/micro/health-snapshot.js [--impl path/to/health-snapshot.js] [--engines N]
 *
 * Two clocks: one that stands still (many requests in one millisecond, as under load) and one
 * that moves 1 ms per read (every read sees a new probedMsAgo). Each read is awaited, so the
 * figures include read()'s own promise; that part is the same for any implementation.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Agent } from 'undici';
import type { EngineEndpoint } from '../../src/config/env.js';
import { ollamaTags, startFakeEngine } from '../../src/engines/fake-engine.testkit.js';
import type { BackendHealth as BackendHealthType } from '../../src/engines/health-snapshot.js';
import { pino } from 'pino';
import { Background } from '../../src/util/background.js';
import { ManualClock } from '../../src/util/clock.js';
import { hasGc, measure, report } from './measure.js';

const { values } = parseArgs({
  options: {
    impl: { type: 'string' },
    engines: { type: 'string', default: '1' },
    rounds: { type: 'string', default: '5' },
    ops: { type: 'string', default: '100000' },
  },
});
const implUrl = values.impl === undefined ? new URL('../../src/engines/health-snapshot.js', import.meta.url).href : pathToFileURL(resolve(values.impl)).href;
const { BackendHealth } = (await import(implUrl)) as { BackendHealth: typeof BackendHealthType };
const opts = { rounds: Number(values.rounds), opsPerRound: Number(values.ops) };
const engineCount = Number(values.engines);

const engine = await startFakeEngine(() => ollamaTags('qwen3:8b', 'llama3.2:3b'));
const dispatcher = new Agent();
const endpoints: EngineEndpoint[] = Array.from({ length: engineCount }, (_, i) => ({ id: `ollama-${i + 1}`, kind: 'ollama', url: engine.url }));
const clock = new ManualClock();
const health = new BackendHealth({
  endpoints,
  dispatcher,
  clock,
  ttlMs: () => 3_600_000,
  background: new Background({ logger: pino({ level: 'silent' }), clock }),
  logger: pino({ level: 'silent' }),
});
const first = await health.read(); // the one cold read: probes every engine
if (!first.every((v) => v.healthy)) throw new Error(`the fake engine did not answer healthy: ${JSON.stringify(first)}`);

let sink: unknown;
const empty = async (): Promise<unknown[]> => [];
const lines = [
  report('an empty async call (the loop alone)', await measure(() => empty().then((v) => (sink = v)), opts)),
  report('read(), clock still (same millisecond)', await measure(() => health.read().then((v) => (sink = v)), opts)),
  report(
    'read(), clock +1 ms per read',
    await measure(() => {
      clock.advance(1);
      return health.read().then((v) => (sink = v));
    }, opts),
  ),
];
void sink;

health.close();
await dispatcher.destroy();
await engine.close();
if (engine.paths.length !== engineCount) throw new Error(`expected ${engineCount} probes, saw ${engine.paths.length}: a read probed`);

console.log(
  `BackendHealth.read() micro-benchmark: ${engineCount} engine(s), fresh snapshot, ${opts.opsPerRound} reads per round, ${opts.rounds} rounds, median shown`,
);
console.log(`impl: ${implUrl}`);
if (!hasGc) console.log('(no --expose-gc: allocation figures left out)');
for (const line of lines) console.log(line);
