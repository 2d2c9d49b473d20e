/**
 * Asks every healthy local engine for its model list in parallel (spec, "What the listing
 * endpoints answer for"). Each engine gets LOCAL_LISTING_DEADLINE_MS from the start of the
 * listing: if another has answered by then, one still silent is left out and its request
 * aborted; if none has, the first to answer is used. A lone engine is simply waited for
 * (its own transport timeout bounds it).
 */
import type { Dispatcher } from 'undici';
import { systemTimer, type Timer } from '../util/timer.js';
import { ENGINE_LISTING_MAX_BYTES, getJson } from './probe-fetch.js';
import type { BackendView } from './types.js';

export const LOCAL_LISTING_DEADLINE_MS = 2_500;

export interface ListingAnswer {
  readonly backend: BackendView;
  readonly body: unknown;
}

export interface ListingResult {
  readonly answers: ListingAnswer[];
  /** Engines left out because they were silent at the deadline while another had answered. */
  readonly leftOut: BackendView[];
}

/** `timer` starts the deadline's wait: Node's timers unless a test passes its ManualClock. */
export async function listLocal(
  backends: readonly BackendView[],
  pathFor: (b: BackendView) => string,
  dispatcher: Dispatcher,
  timer: Timer = systemTimer,
): Promise<ListingResult> {
  const answers: ListingAnswer[] = [];
  const controllers = backends.map(() => new AbortController());
  const settled = new Set<number>();
  let deadlinePassed = false;

  let cancelDeadline = (): void => {};
  await new Promise<void>((resolve) => {
    const done = () => {
      const allSettled = settled.size === backends.length;
      if (allSettled || (deadlinePassed && answers.length > 0)) resolve();
    };
    cancelDeadline = timer.after(LOCAL_LISTING_DEADLINE_MS, () => {
      deadlinePassed = true;
      done();
    });
    if (backends.length === 0) resolve();
    backends.forEach((backend, i) => {
      void getJson(`${backend.url}${pathFor(backend)}`, dispatcher, controllers[i]!.signal, ENGINE_LISTING_MAX_BYTES).then((res) => {
        settled.add(i);
        if (res.ok) answers.push({ backend, body: res.json });
        done();
      });
    });
  });

  // Every engine answering in milliseconds is the usual case: the deadline's timer is not left behind for each listing.
  cancelDeadline();
  const leftOut: BackendView[] = [];
  backends.forEach((backend, i) => {
    if (!settled.has(i)) {
      controllers[i]!.abort();
      leftOut.push(backend);
    }
  });
  // Keep the configured order, so merged listings do not depend on who answered first.
  answers.sort((a, b) => backends.indexOf(a.backend) - backends.indexOf(b.backend));
  return { answers, leftOut };
}
