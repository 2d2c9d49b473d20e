/**
 * A seeded pseudo-random generator (mulberry32): the same seed gives the same trace on every
 * machine, so two people running the benchmark argue about the same requests.
 */
export class Rng {
  #state: number;

  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Uniform in [lo, hi]. */
  between(lo: number, hi: number): number {
    return lo + (hi - lo) * this.next();
  }

  /** A whole number uniform in [lo, hi]. */
  int(lo: number, hi: number): number {
    return Math.floor(this.between(lo, hi + 1 - 1e-9));
  }

  /** Exponentially distributed with the given mean (Poisson arrivals). */
  exponential(mean: number): number {
    return -Math.log(1 - this.next()) * mean;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** A child generator, so adding draws to one stream does not shift another. */
  fork(salt: number): Rng {
    return new Rng((Math.imul(this.#state ^ salt, 2654435761) + salt) >>> 0);
  }
}
