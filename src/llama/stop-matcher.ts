/**
 * Stop strings over streamed text. Text is released as soon as it can no longer be the start of
 * a stop string; a tail that could be is held back until the next piece decides it. On a match
 * the text before the stop string is released and the stop string itself never is.
 */
export class StopMatcher {
  readonly #stops: readonly string[];
  #held = '';

  constructor(stops: readonly string[]) {
    this.#stops = stops.filter((s) => s !== '');
  }

  /** Adds a piece; returns what may be sent now and whether a stop string was reached. */
  push(piece: string): { text: string; stopped: boolean } {
    if (this.#stops.length === 0) return { text: piece, stopped: false };
    const all = this.#held + piece;
    let cut = -1;
    for (const s of this.#stops) {
      const at = all.indexOf(s);
      if (at >= 0 && (cut < 0 || at < cut)) cut = at;
    }
    if (cut >= 0) {
      this.#held = '';
      return { text: all.slice(0, cut), stopped: true };
    }
    const keep = this.#longestPendingTail(all);
    this.#held = all.slice(all.length - keep);
    return { text: all.slice(0, all.length - keep), stopped: false };
  }

  /** What is still held back when generation ends without a stop string. */
  flush(): string {
    const rest = this.#held;
    this.#held = '';
    return rest;
  }

  #longestPendingTail(text: string): number {
    let best = 0;
    for (const s of this.#stops) {
      for (let n = Math.min(s.length - 1, text.length); n > best; n--) {
        if (text.endsWith(s.slice(0, n))) {
          best = n;
          break;
        }
      }
    }
    return best;
  }
}
