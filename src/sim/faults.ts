/**
 * The faults currently injected into the simulator. One fault per scope (a model, or every
 * model); setting a fault for a scope replaces the previous one, so a test can switch modes
 * without clearing first. A model's own fault wins over the every-model one.
 */
import { FAULT_MODES, type FaultMode, type SimActiveFault, type SimFault } from './types.js';
import { isRecord } from './tokens.js';

export class FaultBook {
  #faults: SimActiveFault[] = [];

  list(): SimActiveFault[] {
    return this.#faults.map((f) => ({ ...f }));
  }

  /** Adds or replaces the fault for its scope; mode `none` clears that scope (every fault when no model is named). */
  set(fault: SimFault): void {
    if (fault.mode === 'none') {
      this.#faults = fault.model === undefined ? [] : this.#faults.filter((f) => f.model !== fault.model);
      return;
    }
    // `refuse` closes the whole port, so it keeps one engine-wide entry whatever model was named.
    const { model, count, ...rest } = fault;
    const scoped: SimActiveFault = { ...rest };
    if (model !== undefined && fault.mode !== 'refuse') scoped.model = model;
    if (count !== undefined) {
      scoped.count = count;
      scoped.remaining = count;
    }
    this.#faults = this.#faults.filter((f) => !sameScope(f, scoped));
    this.#faults.push(scoped);
  }

  clear(): void {
    this.#faults = [];
  }

  clearMode(mode: FaultMode): void {
    this.#faults = this.#faults.filter((f) => f.mode !== mode);
  }

  has(mode: FaultMode): boolean {
    return this.#faults.some((f) => f.mode === mode);
  }

  /** The fault that hits this request, counted against its budget; undefined when the request runs clean. */
  take(model: string): SimActiveFault | undefined {
    const fault = this.#faults.find((f) => f.mode !== 'refuse' && f.model === model) ?? this.#faults.find((f) => f.mode !== 'refuse' && f.model === undefined);
    if (fault === undefined) return undefined;
    if (fault.remaining !== undefined) {
      fault.remaining--;
      if (fault.remaining <= 0) this.#faults = this.#faults.filter((f) => f !== fault);
    }
    return { ...fault };
  }
}

function sameScope(a: SimFault, b: SimFault): boolean {
  if (a.mode === 'refuse' || b.mode === 'refuse') return a.mode === b.mode;
  return a.model === b.model;
}

/** Validates a fault sent to the control route; throws with a sentence saying what is wrong. */
export function parseFault(value: unknown): SimFault {
  if (!isRecord(value)) throw new Error('fault must be a JSON object');
  const mode = value['mode'];
  if (typeof mode !== 'string' || !(FAULT_MODES as readonly string[]).includes(mode)) {
    throw new Error(`mode must be one of ${FAULT_MODES.join(', ')}`);
  }
  const fault: SimFault = { mode: mode as FaultMode };
  const model = value['model'];
  if (model !== undefined) {
    if (typeof model !== 'string' || model === '') throw new Error('model must be a non-empty string');
    fault.model = model;
  }
  const status = optionalInt(value, 'status', 100, 599);
  if (status !== undefined) fault.status = status;
  const body = value['body'];
  if (body !== undefined) {
    if (typeof body !== 'string') throw new Error('body must be a string');
    fault.body = body;
  }
  const delayMs = optionalInt(value, 'delayMs', 0, Number.MAX_SAFE_INTEGER);
  if (delayMs !== undefined) fault.delayMs = delayMs;
  const count = optionalInt(value, 'count', 1, Number.MAX_SAFE_INTEGER);
  if (count !== undefined) fault.count = count;
  return fault;
}

function optionalInt(obj: Record<string, unknown>, key: string, min: number, max: number): number | undefined {
  const v = obj[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw new Error(`${key} must be an integer from ${min} to ${max}`);
  }
  return v;
}
