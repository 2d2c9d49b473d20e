/**
 * What each local engine is generating, as this Hub placed it (spec, "Local engine contention"):
 * the chat and completion attempts this node's own placements and peers' forwards have running
 * on it, with the model and the window each runs at. The engine is asked nothing; work that did
 * not pass through the proxy is invisible, as it is to queue depth. An attempt stops counting
 * when the walk leaves it (failover, settle, or the Hub giving up at its deadline).
 */
import type { BusyWith } from '../routing-log/placement-records.js';
import type { AttemptStart, WalkObserver, WalkSettled } from './walk-types.js';

interface Generation extends BusyWith {
  readonly requestId: string;
}

export class EngineWork implements WalkObserver {
  /** Windows per local backend id for each open generation request. */
  readonly #expected = new Map<string, ReadonlyMap<string, number | null>>();
  readonly #running = new Map<string, Generation[]>();

  /** Declares a chat or completion request before its walk: the window it runs at on each local engine. */
  expect(requestId: string, runsAt: ReadonlyMap<string, number | null>): void {
    this.#expected.set(requestId, runsAt);
  }

  /** The generations in flight on each local engine. */
  busy(): ReadonlyMap<string, readonly BusyWith[]> {
    return new Map([...this.#running].map(([id, gens]) => [id, gens.map((g) => ({ model: g.model, numCtx: g.numCtx }))]));
  }

  onAttempt(a: AttemptStart): void {
    const windows = this.#expected.get(a.requestId);
    const backend = a.candidate.peerId === null ? a.candidate.backendId : null;
    if (windows === undefined || backend === null) return;
    const list = this.#running.get(backend) ?? [];
    list.push({ requestId: a.requestId, model: a.model, numCtx: windows.get(backend) ?? null });
    this.#running.set(backend, list);
  }

  onAttemptEnd(a: AttemptStart): void {
    const backend = a.candidate.peerId === null ? a.candidate.backendId : null;
    if (backend !== null) this.#drop(backend, a.requestId);
  }

  onSettled(s: WalkSettled): void {
    this.#expected.delete(s.requestId);
    for (const backend of [...this.#running.keys()]) this.#drop(backend, s.requestId);
  }

  #drop(backend: string, requestId: string): void {
    const left = (this.#running.get(backend) ?? []).filter((g) => g.requestId !== requestId);
    if (left.length === 0) this.#running.delete(backend);
    else this.#running.set(backend, left);
  }
}
