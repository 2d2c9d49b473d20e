/**
 * The simulator's own control surface under /__sim: inject and clear faults, add and remove
 * models, read live state, reset counters and caches. Served on the engine port and, when configured, on a control port
 * that stays up while the `refuse` fault has the engine port closed.
 */
import { parseFault } from './faults.js';
import { parseJson, sendJson, type Exchange } from './http-io.js';
import { parseModelOptions } from './model-options.js';
import type { SimFault, SimModelOptions, SimState } from './types.js';

export const CONTROL_PREFIX = '/__sim/';
/** DELETE this prefix plus a model's name (URL-encoded or not: names may hold slashes) removes the model. */
const MODELS_PREFIX = '/__sim/models/';

/** What the control routes act on (the engine handle, which also owns the listening sockets). */
export interface SimControl {
  state(): SimState;
  /** Resolves once the fault is in force (for `refuse`, once the port is closed). */
  setFault(fault: SimFault): Promise<void>;
  /** Resolves once every fault is gone and the port accepts connections again. */
  clearFaults(): Promise<void>;
  reset(): void;
  /** Serves one more model, as `ollama pull` does; answers the name it is served under. Throws when that name is served already. */
  addModel(model: string | SimModelOptions): string;
  /** Stops serving a model, as `ollama rm` does; false when it was not served. */
  removeModel(name: string): boolean;
}

export async function handleControl(control: SimControl, ex: Exchange, method: string, path: string, body: Buffer): Promise<void> {
  const route = `${method} ${path}`;
  switch (route) {
    case 'GET /__sim/state':
      return sendJson(ex.res, 200, control.state());
    case 'POST /__sim/faults': {
      const parsed = parseJson(body);
      if (parsed.kind !== 'ok') return sendJson(ex.res, 400, { error: 'send a JSON fault object' });
      let fault: SimFault;
      try {
        fault = parseFault(parsed.value);
      } catch (err) {
        return sendJson(ex.res, 400, { error: err instanceof Error ? err.message : String(err) });
      }
      // `refuse` closes the port this answer travels on, so it waits until the answer is out.
      if (fault.mode === 'refuse') {
        ex.res.once('finish', () => void control.setFault(fault));
        return sendJson(ex.res, 200, { ok: true, fault });
      }
      await control.setFault(fault);
      return sendJson(ex.res, 200, { ok: true, fault });
    }
    case 'DELETE /__sim/faults':
      await control.clearFaults();
      return sendJson(ex.res, 200, { ok: true });
    case 'POST /__sim/reset':
      control.reset();
      return sendJson(ex.res, 200, { ok: true });
    case 'POST /__sim/models':
      return addModel(control, ex, body);
    default:
      if (method === 'DELETE' && path.startsWith(MODELS_PREFIX) && path.length > MODELS_PREFIX.length)
        return removeModel(control, ex, decodeURIComponent(path.slice(MODELS_PREFIX.length)));
      return sendJson(ex.res, 404, { error: `no control route ${route}` });
  }
}

function addModel(control: SimControl, ex: Exchange, body: Buffer): void {
  const parsed = parseJson(body);
  if (parsed.kind !== 'ok') return sendJson(ex.res, 400, { error: 'send a model name or a JSON model object' });
  let model: SimModelOptions;
  try {
    model = parseModelOptions(parsed.value);
  } catch (err) {
    return sendJson(ex.res, 400, { error: err instanceof Error ? err.message : String(err) });
  }
  try {
    sendJson(ex.res, 200, { ok: true, model: control.addModel(model) });
  } catch (err) {
    sendJson(ex.res, 409, { error: err instanceof Error ? err.message : String(err) });
  }
}

function removeModel(control: SimControl, ex: Exchange, name: string): void {
  if (!control.removeModel(name)) return sendJson(ex.res, 404, { error: `model ${name} is not served` });
  sendJson(ex.res, 200, { ok: true });
}
