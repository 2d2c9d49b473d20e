/**
 * The walk observer that feeds the throughput book: on the entry node and on the node that
 * serves a peer's forward alike, each finished attempt becomes at most one prefill reading and one
 * decode rate (placement/throughput/sample.ts decides which), filed under the node, engine and model.
 * Whether the node was idle is read as each attempt starts, from this Hub's own counts.
 */
import type { ThroughputBook, BookKey } from '../placement/throughput/book.js';
import { decodeReading, prefillReading, type AttemptFacts } from '../placement/throughput/sample.js';
import type { Candidate } from '../placement/types.js';
import { estimatedPromptTokens } from './header-budget.js';
import type { EngineTimings } from './walk-timings.js';
import type { AttemptStart, WalkObserver, WalkSettled } from './walk-types.js';

export interface ThroughputSamplerDeps {
  readonly book: ThroughputBook;
  /** Whether `c`'s node has nothing in flight but the attempt just started (its own count is held by then). */
  readonly aloneOn: (c: Candidate) => boolean;
}

export function bookKeyOf(c: Candidate, model: string): BookKey {
  return { node: c.node, backendId: c.peerId === null ? c.backendId : null, model };
}

export class ThroughputSampler implements WalkObserver {
  readonly #deps: ThroughputSamplerDeps;
  /** Per request, whether each attempt (by index) started with its node otherwise idle. */
  readonly #idle = new Map<string, boolean[]>();

  constructor(deps: ThroughputSamplerDeps) {
    this.#deps = deps;
  }

  onAttempt(a: AttemptStart): void {
    const list = this.#idle.get(a.requestId) ?? [];
    list[a.index] = a.candidate.queueDepth === 0 && this.#deps.aloneOn(a.candidate);
    this.#idle.set(a.requestId, list);
  }

  onSettled(s: WalkSettled): void {
    const idle = this.#idle.get(s.requestId) ?? [];
    this.#idle.delete(s.requestId);
    if (!s.route.completion) return;
    s.failures.forEach((f, i) => {
      if (f.failure.kind !== 'deadline') return;
      const r = prefillReading(attemptFacts(s, idle[i] === true, null, true, null));
      if (r !== null) this.#deps.book.record(bookKeyOf(f.candidate, s.model), r);
    });
    if (s.served === null || s.attempt === null || s.end !== 'committed' || s.status === null || s.status >= 400) return;
    // An answer judged not to be one (placeholders, a truncated upstream) times nothing the
    // engine read: a stream of placeholders can start at once, and filed as a prefill it would
    // make the engine that broke look fast (bench/fleet caught this).
    if (s.bodyFault?.kind === 'output') return;
    const timings = s.engineTimings();
    const key = bookKeyOf(s.served, s.model);
    // Timed from its own attempt: the wait for the nodes tried before it is not this node's prefill.
    const facts = attemptFacts(s, idle[s.attempt - 1] === true, s.attemptHeadersMs, false, timings);
    const r = prefillReading(facts);
    if (r !== null) this.#deps.book.record(key, r);
    // Without the engine's own generation time, a stream that ran to its end is timed from its
    // first byte; a non-streamed wait also holds the prefill, and a cut-off stream never ended.
    const streamedMs = s.stream && s.bodyFault === null && s.headersMs !== null ? s.totalMs - s.headersMs : null;
    const decode = decodeReading(facts, streamedMs);
    if (decode !== null) this.#deps.book.recordDecode(key, decode);
  }
}

/**
 * One attempt's facts, always built by this one literal: on Node 20 a literal that starts with a
 * spread gets a hidden class of its own (walk-rows.ts), and V8's IC log showed prefillReading's
 * reads of { ...common, idle, ... } going megamorphic on every request.
 */
function attemptFacts(s: WalkSettled, idle: boolean, headersMs: number | null, missedDeadline: boolean, timings: EngineTimings | null): AttemptFacts {
  return {
    completion: true,
    estimatedTokens: estimatedPromptTokens(s.bodyBytes),
    stream: s.stream,
    budgetMs: s.budgetMs,
    idle,
    headersMs,
    missedDeadline,
    timings,
  };
}
