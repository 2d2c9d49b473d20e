/**
 * `cihub dev engine`: runs one simulated engine in the foreground until SIGINT or SIGTERM.
 * The CLI parses flags; this only starts the simulator and reports where it listens.
 */
import { DEFAULT_SIM_HOST, startSimEngine } from '../sim/engine.js';
import { UsageError } from './hub-client.js';
import { untilSignalled } from '../util/until-signalled.js';
import type { Dialect } from '../sim/types.js';

export interface DevEngineOptions {
  port: number;
  dialect: Dialect;
  models: string[];
  prefillTps?: number;
  decodeTps?: number;
  slots?: number;
  timeScale?: number;
  host?: string;
  /** Also serve /__sim/* here: the only way to end a `refuse` fault given without `delayMs`. */
  controlPort?: number;
}

export async function runDevEngine(opts: DevEngineOptions): Promise<void> {
  let engine;
  try {
    engine = await startSimEngine({
      dialect: opts.dialect,
      models: opts.models,
      port: opts.port,
      ...(opts.host === undefined ? {} : { host: opts.host }),
      ...(opts.prefillTps === undefined ? {} : { prefillTps: opts.prefillTps }),
      ...(opts.decodeTps === undefined ? {} : { decodeTps: opts.decodeTps }),
      ...(opts.slots === undefined ? {} : { slots: opts.slots }),
      ...(opts.timeScale === undefined ? {} : { timeScale: opts.timeScale }),
      ...(opts.controlPort === undefined ? {} : { controlPort: opts.controlPort }),
    });
  } catch (err) {
    // Worded as `cihub serve` words it: the port is the command line's to change.
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE')
      throw new UsageError(
        `Port ${opts.port} on ${opts.host ?? DEFAULT_SIM_HOST} is already in use (another engine, or another program, listens there); stop it, or give --port another.`,
      );
    throw err;
  }
  process.stdout.write(`sim engine (${opts.dialect}) listening on ${engine.url} models=${opts.models.join(',')}\n`);
  if (engine.controlUrl !== undefined) process.stdout.write(`control routes (/__sim/*) on ${engine.controlUrl}\n`);
  // The engine's sockets cannot keep this process alive: a `refuse` fault closes the port, and
  // the timer that reopens it is unref'd so in-process tests may exit. Without this hold the
  // process ended (exit 13) as soon as a refusal closed the port.
  const hold = setInterval(() => undefined, 2 ** 31 - 1);
  try {
    await untilSignalled();
  } finally {
    clearInterval(hold);
  }
  await engine.close();
}
