/**
 * A strike-and-withhold record (spec, "A 200 that is not an answer" and "When a node lists a
 * model it cannot actually serve"): two strikes within five minutes withhold a key for 60 s;
 * a key that strikes again on its re-probe after a withhold is withheld again for twice as long,
 * up to 15 minutes; one clean answer clears it outright. Withholding is never permanent: an
 * expired entry is offered again, and the next request is the re-probe. Keys are bounded
 * because they grow with what engines and peers list.
 *
 * A clean answer counts only when its attempt began after the key's last strike. A long stream
 * that began before an engine started failing ends cleanly while new requests to it fail: in the
 * soak (1,000 streams, an Ollama answering 500) each such stream ended the withhold the failures
 * had just started, the next requests went back to the failing engine, and the warning that it
 * was withheld was logged 7-22 times a second for the whole fault (bench/README.md, 2026-12-03
 * 22:00). An answer that began before the failure says nothing about the engine now.
 */
import type { EngineKind } from '../engines/engine-kind.js';
import { canonicalModelName } from '../engines/model-name.js';
import type { BackendView, ProxyDialect } from '../engines/types.js';
import { localCandidates, type LocalUnservable } from '../placement/candidates.js';
import type { Candidate, WithheldFact } from '../placement/types.js';
import { elapsedMs, type Clock } from '../util/clock.js';

export const STRIKE_WINDOW_MS = 5 * 60_000;
export const STRIKES_TO_WITHHOLD = 2;
export const FIRST_WITHHOLD_MS = 60_000;
export const MAX_WITHHOLD_MS = 15 * 60_000;
/** The most keys the book holds; the oldest is forgotten to make room (see the header). */
export const MAX_KEYS = 10_000;

/** Where the book's strikes stood when an attempt began (see the header): taken with mark(), given back to clear(). */
export type StrikeMark = number;

interface Entry {
  strikes: number[];
  /** The book's strike count after this key's last strike: answers begun at a mark below it are older than that strike. */
  lastStrike: StrikeMark;
  /** Length of the last withhold; 0 when never withheld since the last clean answer. */
  backoffMs: number;
  /** When the last withhold began; null when never withheld since the last clean answer. Judged by withholding(). */
  withheldAtMs: number | null;
  reason: string;
}

/**
 * When the entry's withhold ends, or null when none is in force at `nowMs`. A withhold begun
 * before the wall clock was set back has ended (elapsedMs): judged by its end, a 60 s withhold
 * set before a two-hour step was still on half an hour later (audit, 2026-12-07).
 */
function withholding(e: Entry, nowMs: number): number | null {
  if (e.withheldAtMs === null || elapsedMs(nowMs, e.withheldAtMs) >= e.backoffMs) return null;
  return e.withheldAtMs + e.backoffMs;
}

export interface WithheldEntry {
  readonly key: string;
  readonly until: string;
  readonly reason: string;
}

export class WithholdBook {
  readonly #clock: Clock;
  readonly #entries = new Map<string, Entry>();
  /** Strikes recorded so far, on every key. */
  #struck = 0;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Where the strikes stand now: an attempt takes this as it begins. */
  mark(): StrikeMark {
    return this.#struck;
  }

  /** Records a strike; returns true when this strike started a withhold. */
  strike(key: string, reason: string): boolean {
    const now = this.#clock.nowMs();
    let e = this.#entries.get(key);
    if (!e) {
      if (this.#entries.size >= MAX_KEYS) this.#entries.delete(this.#entries.keys().next().value!);
      e = { strikes: [], lastStrike: 0, backoffMs: 0, withheldAtMs: null, reason };
      this.#entries.set(key, e);
    }
    e.reason = reason;
    // Even a strike during a withhold is news: answers begun before it are older than it.
    this.#struck += 1;
    e.lastStrike = this.#struck;
    if (withholding(e, now) !== null) return false;
    if (e.backoffMs > 0) {
      // The re-probe after a withhold failed too: withhold again, twice as long.
      e.backoffMs = Math.min(MAX_WITHHOLD_MS, e.backoffMs * 2);
      e.withheldAtMs = now;
      return true;
    }
    e.strikes = [...e.strikes.filter((t) => elapsedMs(now, t) < STRIKE_WINDOW_MS), now];
    if (e.strikes.length < STRIKES_TO_WITHHOLD) return false;
    e.backoffMs = FIRST_WITHHOLD_MS;
    e.withheldAtMs = now;
    e.strikes = [];
    return true;
  }

  /**
   * A clean answer: forgets the key, unless `since` (the mark its attempt took as it began) is
   * older than the key's last strike. No `since`: evidence of the engine now (the model resident
   * in /api/ps). Returns true when it ended a withhold (or a backoff).
   */
  clear(key: string, since?: StrikeMark): boolean {
    const e = this.#entries.get(key);
    if (!e || (since !== undefined && since < e.lastStrike)) return false;
    this.#entries.delete(key);
    return e.backoffMs > 0;
  }

  isWithheld(key: string): boolean {
    const e = this.#entries.get(key);
    return e !== undefined && withholding(e, this.#clock.nowMs()) !== null;
  }

  /** The withhold in force for one key; null when the key is not withheld now. */
  withheldEntry(key: string): WithheldEntry | null {
    const e = this.#entries.get(key);
    const untilMs = e === undefined ? null : withholding(e, this.#clock.nowMs());
    if (e === undefined || untilMs === null) return null;
    return { key, until: new Date(untilMs).toISOString(), reason: e.reason };
  }

  /** True when the book holds no key at all (no strike and no withhold), so nothing is withheld. */
  get isEmpty(): boolean {
    return this.#entries.size === 0;
  }

  /** Keys withheld now, for status and capabilities. */
  withheld(): WithheldEntry[] {
    const now = this.#clock.nowMs();
    const out: WithheldEntry[] = [];
    for (const [key, e] of this.#entries) {
      const untilMs = withholding(e, now);
      if (untilMs !== null) out.push({ key, until: new Date(untilMs).toISOString(), reason: e.reason });
    }
    return out;
  }
}

/** The key an engine's output is judged under: the node, the engine there (unknown for a peer), the model. */
export function engineModelKey(node: string, backend: string | null, model: string): string {
  return `${node}|${backend ?? '*'}|${model}`;
}

/**
 * The key the unservable book holds a local engine's model under. The model is the engine's own
 * reading of the name (canonicalModelName): a request for `qwen3` and one for `qwen3:latest`
 * reach the same Ollama model, so their strikes add up, either one's success clears them, and
 * the withhold covers the name the engine lists. Keyed by the name as asked, a model withheld as
 * `qwen3` was still placed as `qwen3:latest` and never reached unservableModels.
 */
export function unservableKey(backendId: string, kind: EngineKind, model: string): string {
  return engineModelKey('local', backendId, canonicalModelName(kind, model));
}

/**
 * The unservable book as the one test of whether a local engine withholds a model (the key the
 * walk strikes under, fault-records.ts). Candidates, auto's offers and the listings all read
 * this, so a model auto picks or a listing names is one a local candidate exists for.
 */
export function localUnservable(book: WithholdBook): LocalUnservable {
  // An empty book builds no key: the listings and auto ask it about every model every engine holds.
  return (backend, model) => !book.isEmpty && book.isWithheld(unservableKey(backend.backendId, backend.kind, model));
}

/** A local engine that holds a model and withholds it now: what a 502 for that model names. */
export interface WithheldHere {
  readonly backend: string;
  readonly until: string;
  readonly reason: string;
}

/**
 * The healthy local engines that hold `model` in the dialect but withhold it now. Placement left
 * them out, so a 502 for the model would otherwise read as no engine holding it while the
 * engines' own report lists it, and the operator was pointed at pulls and firewalls.
 */
export function withheldHere(views: readonly BackendView[], model: string, dialect: ProxyDialect, book: WithholdBook): WithheldHere[] {
  if (book.isEmpty) return [];
  const out: WithheldHere[] = [];
  for (const c of localCandidates(views, model, dialect, () => 0)) {
    if (c.backendId === null || c.engine === null) continue;
    const entry = book.withheldEntry(unservableKey(c.backendId, c.engine, model));
    if (entry !== null) out.push({ backend: c.backendId, until: entry.until, reason: entry.reason });
  }
  return out;
}

/**
 * The key a candidate's output is judged under: its node, the engine when local (its backend id:
 * two Ollama instances here are two engines, and one giving bad output is withheld alone; a peer
 * picks its own), the model. A local engine's model is its own reading of the name, as in
 * unservableKey: `qwen3` and `qwen3:latest` are one Ollama model, whose faults add up. The walk
 * strikes and clears under the same key (walk.ts #faultKey).
 */
export function candidateKey(c: Candidate, model: string): string {
  return c.peerId === null && c.backendId !== null && c.engine !== null
    ? engineModelKey(c.node, c.backendId, canonicalModelName(c.engine, model))
    : engineModelKey(c.node, null, model);
}

/*
 * Placement asks the book about every candidate on every request, and the book is empty but
 * for engines that answered badly: then no key is built. Building and looking up a fresh key
 * string per candidate was ~3.5 µs of a short placement at 50 peers (bench/micro/placement.ts).
 */

/** The candidates withheld for bad output now, by candidate id, with until when and why. */
export function withheldFacts(candidates: readonly Candidate[], model: string, book: WithholdBook): Map<string, WithheldFact> {
  const out = new Map<string, WithheldFact>();
  if (book.isEmpty) return out;
  for (const c of candidates) {
    const entry = book.withheldEntry(candidateKey(c, model));
    if (entry !== null) out.set(c.id, { until: entry.until, reason: entry.reason });
  }
  return out;
}

/** Whether a candidate is withheld for bad output now (what the throughput rules read). */
export function withheldTest(book: WithholdBook, model: string): (c: Candidate) => boolean {
  return (c) => !book.isEmpty && book.isWithheld(candidateKey(c, model));
}
