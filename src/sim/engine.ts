/**
 * The simulator's public entry point: start an engine on loopback, steer its faults, read its
 * state, close it. Tests and benchmarks use this in-process; `cihub dev engine` wraps it.
 */
import type { SimControl } from './control-routes.js';
import { SimCore } from './core.js';
import { Listener } from './listener.js';
import { createControlHandler, createEngineHandler } from './router.js';
import type { Dialect, SimEngineOptions, SimFault, SimModelOptions, SimState } from './types.js';

export const DEFAULT_SIM_HOST = '127.0.0.1';

export interface SimEngine extends SimControl {
  readonly dialect: Dialect;
  /** Base URL of the engine port, e.g. http://127.0.0.1:41234 (no trailing slash). */
  readonly url: string;
  readonly port: number;
  /** Base URL of the control-only port when `controlPort` was given. */
  readonly controlUrl: string | undefined;
  state(): SimState;
  setFault(fault: SimFault): Promise<void>;
  setFaults(faults: readonly SimFault[]): Promise<void>;
  clearFaults(): Promise<void>;
  /** Ends a `refuse` fault early and listens again on the same port; other faults stay. */
  restore(): Promise<void>;
  /** Clears prefix caches, counters and loaded windows (faults stay). */
  reset(): void;
  addModel(model: string | SimModelOptions): string;
  removeModel(name: string): boolean;
  close(): Promise<void>;
}

export async function startSimEngine(opts: SimEngineOptions): Promise<SimEngine> {
  const engine = new RunningEngine(opts);
  await engine.start(opts);
  return engine;
}

class RunningEngine implements SimEngine {
  readonly dialect: Dialect;
  #core: SimCore;
  #host: string;
  #listener: Listener;
  #control: Listener | undefined;
  #refuseTimer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(opts: SimEngineOptions) {
    this.dialect = opts.dialect;
    this.#core = new SimCore(opts);
    this.#host = opts.host ?? DEFAULT_SIM_HOST;
    this.#listener = new Listener(createEngineHandler(this.#core, this), this.#host, opts.port ?? 0);
    if (opts.controlPort !== undefined) this.#control = new Listener(createControlHandler(this), this.#host, opts.controlPort);
  }

  async start(opts: SimEngineOptions): Promise<void> {
    await this.#listener.open();
    await this.#control?.open();
    await this.setFaults(opts.faults ?? []);
  }

  get port(): number {
    return this.#listener.port;
  }

  get url(): string {
    return baseUrl(this.#host, this.#listener.port);
  }

  get controlUrl(): string | undefined {
    return this.#control === undefined ? undefined : baseUrl(this.#host, this.#control.port);
  }

  state(): SimState {
    return this.#core.state();
  }

  async setFault(fault: SimFault): Promise<void> {
    this.#core.faults.set(this.#core.normaliseFault(fault));
    if (fault.mode === 'refuse') this.#armRefuseTimer(fault.delayMs);
    await this.#syncRefusal();
  }

  async setFaults(faults: readonly SimFault[]): Promise<void> {
    for (const f of faults) await this.setFault(f);
  }

  async clearFaults(): Promise<void> {
    this.#core.faults.clear();
    await this.#syncRefusal();
  }

  async restore(): Promise<void> {
    this.#core.faults.clearMode('refuse');
    await this.#syncRefusal();
  }

  reset(): void {
    this.#core.reset();
  }

  addModel(model: string | SimModelOptions): string {
    return this.#core.addModel(typeof model === 'string' ? { name: model } : model).name;
  }

  removeModel(name: string): boolean {
    return this.#core.removeModel(name);
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#refuseTimer);
    await Promise.all([this.#listener.close(), this.#control?.close()]);
  }

  /** A timed refusal reopens the port by itself after `delayMs` simulated ms. */
  #armRefuseTimer(delayMs: number | undefined): void {
    clearTimeout(this.#refuseTimer);
    this.#refuseTimer = undefined;
    if (delayMs === undefined) return;
    this.#refuseTimer = setTimeout(() => void this.restore(), this.#core.scale.wallMs(delayMs));
    this.#refuseTimer.unref();
  }

  /** Makes the port match the fault book: closed while a `refuse` fault is set, open otherwise. */
  async #syncRefusal(): Promise<void> {
    const refusing = this.#core.faults.has('refuse');
    this.#core.refusing = refusing;
    if (refusing) return this.#listener.stopAccepting();
    clearTimeout(this.#refuseTimer);
    this.#refuseTimer = undefined;
    // Clearing faults on a closed engine must not bring its port back.
    if (!this.#closed) await this.#listener.open();
  }
}

function baseUrl(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}
