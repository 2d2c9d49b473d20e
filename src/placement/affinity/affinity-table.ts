/**
 * Where each session was last placed (spec, "Prefix affinity", What it remembers): the node,
 * the engine on it, and when. Written as each attempt is placed, not when it answers, so a
 * session's next call arriving while this one is still prefilling follows to the engine
 * already reading the shared prefix; a failover overwrites the entry with the candidate that
 * took the work; a walk that failed everywhere forgets it. In memory only: a restart forgets all.
 */
import { elapsedMs, type Clock } from '../../util/clock.js';

/** At most this many keys are held; the least recently placed goes first. */
export const PREFIX_AFFINITY_MAX_KEYS = 1_000;

/** The node and engine a session was last placed on. */
export interface AffinityPlacement {
  /** 'local' or the peer's MagicDNS name. */
  readonly node: string;
  /** The local engine's id; null for a peer, which picks its own engine. */
  readonly backendId: string | null;
}

interface Entry extends AffinityPlacement {
  readonly placedAtMs: number;
}

export class AffinityTable {
  readonly #clock: Clock;
  readonly #ttlMs: number;
  readonly #maxKeys: number;
  /** Insertion order is placement order: every write deletes and re-inserts, so the first key is the least recently placed. */
  readonly #entries = new Map<string, Entry>();

  constructor(deps: { clock: Clock; ttlMs: number; maxKeys?: number }) {
    this.#clock = deps.clock;
    this.#ttlMs = deps.ttlMs;
    this.#maxKeys = deps.maxKeys ?? PREFIX_AFFINITY_MAX_KEYS;
  }

  /** The live placement for `key`; null when none was made or it expired (an expired entry is dropped here). */
  lookup(key: string): AffinityPlacement | null {
    const entry = this.#entries.get(key);
    if (entry === undefined) return null;
    // A placement stamped ahead of now (the wall clock was set back) has expired, or it would hold
    // the session to that node for as long as the step (clock.ts, elapsedMs).
    if (elapsedMs(this.#clock.nowMs(), entry.placedAtMs) >= this.#ttlMs) {
      this.#entries.delete(key);
      return null;
    }
    return { node: entry.node, backendId: entry.backendId };
  }

  /** Records an attempt placed on `at`, replacing what the key held. */
  place(key: string, at: AffinityPlacement): void {
    this.#entries.delete(key);
    this.#entries.set(key, { node: at.node, backendId: at.backendId, placedAtMs: this.#clock.nowMs() });
    while (this.#entries.size > this.#maxKeys) {
      const oldest = this.#entries.keys().next().value as string;
      this.#entries.delete(oldest);
    }
  }

  /** Forgets `key`: its last walk failed on every candidate, so the next call ranks fresh. */
  forget(key: string): void {
    this.#entries.delete(key);
  }

  get size(): number {
    return this.#entries.size;
  }
}
