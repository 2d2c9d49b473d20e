/**
 * Micro-benchmark of BackendHealth.read() at poolProbeSnapshotTtlMs 0 (the default) for a lone
 * client (issue 13 item 4): reads one after another against a real loopback fake engine, with
 * the real clock, each followed by `--gap-us` of busy work standing in for the rest of the
 * request (placement, the relay). Prints probes per read and how long reads waited, with the
 * LIVE_PROBE_REUSE_MS the build has.
 *
 *   npx tsc -p . && node dist/bench/micro/live-probe.js [--reads 5000] [--gap-us 300]
 *
 * The constant is compiled in, so "before" (no reuse) is the same build with LIVE_PROBE_REUSE_MS
 * patched to 0 in dist/ (bench/README.md says how it was run).
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Agent } from 'undici';
import { pino } from 'pino';
import type { EngineEndpoint } from '../../src/config/env.js';
import { ollamaTags, startFakeEngine } from '../../src/engines/fake-engine.testkit.js';
import { BackendHealth, LIVE_PROBE_REUSE_MS } from '../../src/engines/health-snapshot.js';
import { Background } from '../../src/util/background.js';
import { systemClock } from '../../src/util/clock.js';

const { values } = parseArgs({
  options: {
    reads: { type: 'string', default: '5000' },
    'gap-us': { type: 'string', default: '300' },
  },
});
const reads = Number(values.reads);
const gapUs = Number(values['gap-us']);

const engine = await startFakeEngine(() => ollamaTags('qwen3:8b'));
const dispatcher = new Agent();
const endpoints: EngineEndpoint[] = [{ id: 'ollama-1', kind: 'ollama', url: engine.url }];
const health = new BackendHealth({
  endpoints,
  dispatcher,
  clock: systemClock,
  ttlMs: () => 0,
  background: new Background({ logger: pino({ level: 'silent' }), clock: systemClock }),
  logger: pino({ level: 'silent' }),
});
for (let i = 0; i < 200; i++) await health.read(); // warm-up: connection, JIT

const probesBefore = engine.paths.length;
let waitedMs = 0;
const waits: number[] = [];
for (let i = 0; i < reads; i++) {
  const start = performance.now();
  await health.read();
  const ms = performance.now() - start;
  waitedMs += ms;
  waits.push(ms);
  const until = performance.now() + gapUs / 1000;
  while (performance.now() < until);
}
const probes = engine.paths.length - probesBefore;
waits.sort((a, b) => a - b);
process.stdout.write(
  `LIVE_PROBE_REUSE_MS ${LIVE_PROBE_REUSE_MS}, ${reads} reads ${gapUs} µs apart: ${(probes / reads).toFixed(3)} probes a read, ` +
    `read waited mean ${(waitedMs / reads).toFixed(3)} ms, p50 ${waits[Math.floor(reads / 2)]!.toFixed(3)} ms\n`,
);
health.close();
await dispatcher.close();
await engine.close();
