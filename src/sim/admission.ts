/**
 * What happens to an inference request after its body is read and its model is known, before it
 * queues: counting it, noticing the client's hang-up, and applying an injected fault.
 */
import type { SimCore } from './core.js';
import { isAbortError, sendRaw, type Exchange } from './http-io.js';
import type { ModelRuntime } from './slots.js';

/** How a request that goes on to generate should misbehave, if at all. */
export interface RunFlags {
  unused: boolean;
  cut: boolean;
}

const CLEAN: RunFlags = { unused: false, cut: false };

/**
 * Returns the flags to run with, or null when a fault has already answered (or swallowed) the
 * request. `faultBody` gives the dialect's own error body for mode `error` without a body.
 */
export async function admit(core: SimCore, ex: Exchange, runtime: ModelRuntime, faultBody: (status: number) => string): Promise<RunFlags | null> {
  core.countRequest(runtime);
  ex.onClientAbort(() => core.countAbort(runtime));
  const fault = core.faults.take(runtime.profile.name);
  if (fault === undefined) return CLEAN;
  switch (fault.mode) {
    case 'hang':
      await hangUntilClientLeaves(core, ex);
      return null;
    case 'error': {
      const status = fault.status ?? 500;
      sendRaw(ex.res, status, fault.body ?? faultBody(status), 'application/json');
      return null;
    }
    case 'slow-first-byte':
      try {
        await core.scale.sleep(fault.delayMs ?? 0, ex.signal);
      } catch (err) {
        if (isAbortError(err)) return null;
        throw err;
      }
      return CLEAN;
    case 'unused':
      return { unused: true, cut: false };
    case 'cut':
      return { unused: false, cut: true };
    default:
      return CLEAN;
  }
}

/** Holds the request without ever answering; the client's own timeout or abort ends it. */
async function hangUntilClientLeaves(core: SimCore, ex: Exchange): Promise<void> {
  core.hanging++;
  try {
    await new Promise<void>((resolve) => {
      if (ex.signal.aborted) resolve();
      else ex.signal.addEventListener('abort', () => resolve(), { once: true });
    });
  } finally {
    core.hanging--;
  }
}

/** How many tokens a cut stream delivers before it stops: about half the answer, at least one. */
export function cutPoint(plannedTokens: number): number {
  return Math.max(1, Math.floor(plannedTokens / 2));
}
