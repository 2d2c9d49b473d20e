/**
 * One host's engine, as a process of its own in that host's namespace: the engine simulator
 * (src/sim) speaking Ollama on 0.0.0.0:<port>. The Hub beside it dials it on loopback; the
 * harness reads and steers it (/__sim/state, /__sim/faults) over the switch.
 *
 * Usage: node host-engine.js <json: SimEngineOptions>. Prints one line `listening` when ready.
 */
import { startSimEngine } from '../../src/sim/engine.js';
import type { SimEngineOptions } from '../../src/sim/types.js';

const opts = JSON.parse(process.argv[2] ?? '{}') as SimEngineOptions;
const engine = await startSimEngine(opts);
process.stdout.write('listening\n');
process.on('SIGTERM', () => void engine.close().then(() => process.exit(0)));
