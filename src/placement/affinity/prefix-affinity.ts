/**
 * Prefix affinity's stateful half: the table, and the walk hooks that write it. The decision
 * itself is the pure step (placement/steps/affinity.ts), which reads what contextFor() looked
 * up. The table is written as each attempt is placed (so a failover overwrites it with the
 * candidate that took the work) and forgotten when a walk failed on every candidate.
 */
import type { PoolSettings } from '../../config/settings-schema.js';
import type { Clock } from '../../util/clock.js';
import type { WalkObserver } from '../../proxy/walk-types.js';
import type { AffinityContext } from '../steps/affinity.js';
import { AffinityTable } from './affinity-table.js';
import { DigestMemo } from './digest-memo.js';
import { sessionKey, sha256Hex, validSessionHeader } from './session-key.js';

export interface AffinityRequest {
  readonly model: string;
  /** Chat, completion and generate: the routes a prompt ceiling judges. Never embeddings. */
  readonly judgedRoute: boolean;
  /** The raw X-Hub-Pool-Session header. */
  readonly sessionHeader: string | readonly string[] | undefined;
  readonly body: Readonly<Record<string, unknown>>;
}

/** The step's view of a request, with the session key its walk writes the table under once it starts. */
export interface AffinityLookup extends AffinityContext {
  readonly key: string;
}

export class PrefixAffinity {
  readonly #table: AffinityTable;
  /** The key of each walk in progress, by request id; bounded by the requests in flight. */
  readonly #walks = new Map<string, string>();
  /** A session's later calls repeat its head: their digests come from here. */
  readonly #digests = new DigestMemo(sha256Hex);

  constructor(deps: { clock: Clock; ttlMs: number; maxKeys?: number }) {
    this.#table = new AffinityTable(deps);
  }

  /**
   * The step's view of this request, or null when affinity is off or does not judge it. At
   * poolPrefixAffinityMaxInFlight 0 nothing is hashed or remembered: the build before affinity.
   */
  contextFor(req: AffinityRequest, settings: Pick<PoolSettings, 'poolPrefixAffinityMaxInFlight' | 'poolPrefixAffinityMargin'>): AffinityLookup | null {
    if (settings.poolPrefixAffinityMaxInFlight <= 0 || !req.judgedRoute) return null;
    const key = sessionKey(req.model, validSessionHeader(req.sessionHeader), req.body, this.#digests.digestOf);
    if (key === null) return null;
    return {
      keySource: key.source,
      remembered: this.#table.lookup(key.key),
      maxInFlight: settings.poolPrefixAffinityMaxInFlight,
      margin: settings.poolPrefixAffinityMargin,
      key: key.key,
    };
  }

  /**
   * The walk of `requestId` starts now: its attempts write the table under the lookup's key, and
   * its settle lets the key go. The proxy calls this as the walk begins, so the walk's settle is
   * the one place a key is released, and a request that ends before its walk (placement broke an
   * invariant, the routing log refused the row) holds nothing here. Keys used to be taken at
   * lookup, and such a request left its key behind for good.
   */
  follow(requestId: string, lookup: AffinityLookup): void {
    this.#walks.set(requestId, lookup.key);
  }

  /** Keys held now; for tests and status. */
  get size(): number {
    return this.#table.size;
  }

  readonly observer: WalkObserver = {
    onAttempt: (attempt) => {
      const key = this.#walks.get(attempt.requestId);
      if (key !== undefined) this.#table.place(key, { node: attempt.candidate.node, backendId: attempt.candidate.backendId });
    },
    onSettled: (settled) => {
      const key = this.#walks.get(settled.requestId);
      if (key === undefined) return;
      this.#walks.delete(settled.requestId);
      if (settled.end === 'exhausted') this.#table.forget(key);
    },
  };
}
