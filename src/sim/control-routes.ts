/**
 * The simulator's own control surface under /__sim: inject and clear faults, read live state,
 * reset counters and caches. Served on the engine port and, when configured, on a control port
 * that stays up while the `refuse` fault has the engine port closed.
 */
import { parseFault } from './faults.js';
import { parseJson, sendJson, type Exchange } from './http-io.js';
import type { SimFault, SimState } from './types.js';

export const CONTROL_PREFIX = '/__sim/';

/** What the control routes act on (the engine handle, which also owns the listening sockets). */
export interface SimControl {
  state(): SimState;
  /** Resolves once the fault is in force (for `refuse`, once the port is closed). */
  setFault(fault: SimFault): Promise<void>;
  /** Resolves once every fault is gone and the port accepts connections again. */
  clearFaults(): Promise<void>;
  reset(): void;
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
    default:
      return sendJson(ex.res, 404, { error: `no control route ${route}` });
  }
}
