/**
 * Which verdict the walk holds and when it may answer with it (spec, "A request no node can
 * serve"). Definitive verdicts answer at once. The others need the next candidate that answers
 * to agree, and then only if no candidate still ahead could answer otherwise: for a malformed
 * message or a template, one running an engine kind that has not refused; for a prompt over the
 * window, one running a larger window or one this Hub cannot see. A verdict from the last
 * candidate is returned anyway; a walk whose last candidate failed some other way still ends in
 * the 502, since a node that never answered might have served it. Pure: the walk reports.
 */
import type { EngineKind } from '../engines/engine-kind.js';
import type { Candidate } from '../placement/types.js';
import { DEFINITIVE_VERDICTS, type VerdictSignature } from './request-verdict.js';

export interface HeldVerdict<R> {
  readonly signature: VerdictSignature;
  readonly node: string;
  readonly index: number;
  readonly response: R;
}

export type VerdictDecision<R> =
  | {
      readonly action: 'answer';
      readonly basis: 'definitive' | 'confirmed' | 'last-candidate';
      readonly confirms: string | null;
      readonly verdict: HeldVerdict<R>;
    }
  | { readonly action: 'walk-on' };

export class VerdictTracker<R> {
  readonly #order: readonly Candidate[];
  /** The window a candidate runs the request at, when this Hub can know it; null = cannot see it. */
  readonly #windowOf: (c: Candidate) => number | null;
  readonly #refusedKinds = new Set<EngineKind>();
  #held: HeldVerdict<R> | null = null;

  constructor(order: readonly Candidate[], windowOf: (c: Candidate) => number | null) {
    this.#order = order;
    this.#windowOf = windowOf;
  }

  /**
   * `refusedBy` is the engine kind that gave the verdict: a local candidate's own, or the one a
   * peer marked its relayed answer with (X-Hub-Pool-Backend, already checked against the known
   * kinds). A peer's candidate names no engine, so reading the kind off the candidate missed every
   * refusal a peer relayed; null still means not known, and counts as no kind having refused.
   */
  onVerdict(index: number, signature: VerdictSignature, refusedBy: EngineKind | null, response: R): VerdictDecision<R> {
    const candidate = this.#order[index]!;
    const verdict: HeldVerdict<R> = { signature, node: candidate.node, index, response };
    if (refusedBy !== null) this.#refusedKinds.add(refusedBy);
    if (DEFINITIVE_VERDICTS.has(signature)) return { action: 'answer', basis: 'definitive', confirms: null, verdict };
    const earlier = this.#held;
    this.#held = verdict;
    const ahead = this.#order.slice(index + 1);
    if (earlier !== null && earlier.signature === signature) {
      const couldAnswer =
        signature === 'context-length'
          ? this.#largerWindowAhead(this.#order[earlier.index]!, candidate, ahead)
          : ahead.some((c) => c.engine === null || !this.#refusedKinds.has(c.engine));
      if (!couldAnswer) return { action: 'answer', basis: 'confirmed', confirms: earlier.node, verdict };
    }
    // Nobody left to ask: the refusal goes to the app rather than vanishing into a 502.
    return ahead.length === 0 ? { action: 'answer', basis: 'last-candidate', confirms: null, verdict } : { action: 'walk-on' };
  }

  #largerWindowAhead(first: Candidate, second: Candidate, ahead: readonly Candidate[]): boolean {
    const window = this.#windowOf(second);
    // The second candidate must run the same, known window to confirm anything.
    if (window === null || window !== this.#windowOf(first)) return true;
    return ahead.some((c) => {
      const w = this.#windowOf(c);
      return w === null || w > window;
    });
  }
}
