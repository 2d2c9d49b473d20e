/**
 * RoutingLog: the bounded, in-memory, process-local record of routing decisions behind
 * GET /api/inference/pool/routing-log. Nothing survives a restart; bootId tells a poller so.
 *
 * Rows are frozen and replaced whole on every change, so a page already handed to a reader
 * (or serialised half-way) never changes under it. A Map keyed by request id holds them in
 * placement order, which is also eviction order.
 */
import { randomUUID } from 'node:crypto';
import type { EngineKind } from '../engines/engine-kind.js';
import { HubError } from '../errors.js';
import type { Clock } from '../util/clock.js';
import { changesSince, newestPlacements, pageLimit, type CursorRow, type Selection } from './cursor.js';
import {
  NULL_PLACEMENT_RECORDS,
  type Direction,
  type PlacementRecords,
  type RoutingLogEntry,
  type RoutingLogPage,
  type RoutingLogSummary,
} from './entry.js';
import { parseSince } from './since.js';
import { countRows } from './summary.js';

// The HTTP layer validates since with the same parser the ring pages with.
export { parseSince, type ParsedSince } from './since.js';

export interface RoutingLogOptions {
  /** Most rows held; the oldest placement goes first. Config owns the default and range. */
  readonly size: number;
  readonly clock: Clock;
  /** Fixed id for tests; otherwise randomId() is asked once. */
  readonly bootId?: string;
  readonly randomId?: () => string;
}

/** What the proxy knows when it places a request. */
export interface OpenFields {
  readonly id: string;
  readonly direction: Direction;
  readonly path: string;
  readonly model: string | null;
  readonly candidates: number;
  readonly stream: boolean;
  readonly bodyBytes: number;
  readonly budgetMs: number;
  readonly node?: string | null;
  readonly backend?: EngineKind | null;
  /** What each placement step did; a record left out starts null. */
  readonly placement?: Partial<PlacementRecords>;
}

/** A change to a row. Who and when it was placed never change; only settle sets the outcome. Undefined fields are ignored. */
export type RowPatch = Partial<Omit<RoutingLogEntry, 'id' | 'timestamp' | 'updatedAt' | 'direction' | 'outcome'>>;
export type SettlePatch = RowPatch & { readonly outcome: 'served' | 'failed' };

export interface PageQuery {
  readonly limit?: number;
  /** An ISO time with a zone; the HTTP layer has already refused any other. */
  readonly since?: string;
}

export class RoutingLog {
  readonly #size: number;
  readonly #clock: Clock;
  readonly #bootId: string;
  readonly #startedAt: string;
  readonly #rows = new Map<string, CursorRow>();
  #totalRecorded = 0;
  #changeSeq = 0;
  #lastStampMs = Number.NEGATIVE_INFINITY;

  constructor(options: RoutingLogOptions) {
    if (!Number.isInteger(options.size) || options.size < 1) {
      throw new RangeError(`routing log size must be a positive integer, got ${options.size}`);
    }
    this.#size = options.size;
    this.#clock = options.clock;
    this.#bootId = options.bootId ?? (options.randomId ?? randomUUID)();
    this.#startedAt = new Date(this.#stamp()).toISOString();
  }

  /** open records a pending row for a request just placed and returns it. An id already held is replaced, as a new placement. */
  open(fields: OpenFields): RoutingLogEntry {
    const nowMs = this.#stamp();
    this.#rows.delete(fields.id);
    const entry = freezeRow(pendingRow(fields, new Date(nowMs).toISOString()));
    this.#rows.set(fields.id, { entry, updatedMs: nowMs, changeSeq: this.#changeSeq++ });
    this.#totalRecorded++;
    this.#evict();
    return entry;
  }

  /** update changes a held row and returns the new copy; undefined when the row is gone (evicted). */
  update(id: string, patch: RowPatch): RoutingLogEntry | undefined {
    return this.#change(id, patch);
  }

  /** settle records a row's final outcome, with whatever else the walk learned; undefined when the row is gone. */
  settle(id: string, patch: SettlePatch): RoutingLogEntry | undefined {
    return this.#change(id, patch);
  }

  /** get returns the row held for id as it stands now. */
  get(id: string): RoutingLogEntry | undefined {
    return this.#rows.get(id)?.entry;
  }

  /** page answers GET /routing-log; see cursor.ts for which rows qualify. An invalid since throws HUB_ERR_QUERY_INVALID. */
  page(query: PageQuery = {}): RoutingLogPage {
    const limit = pageLimit(query.limit);
    const rows = [...this.#rows.values()];
    let selection: Selection;
    let emptyCursor: string;
    if (query.since === undefined) {
      selection = newestPlacements(rows, limit);
      emptyCursor = new Date(Math.max(this.#clock.nowMs(), this.#lastStampMs)).toISOString();
    } else {
      const since = parseSince(query.since);
      if (!since.ok) throw new HubError('HUB_ERR_QUERY_INVALID', since.message);
      selection = changesSince(rows, since.ms, limit);
      emptyCursor = query.since;
    }
    return {
      entries: selection.entries,
      nextSince: selection.newestChange ?? emptyCursor,
      matched: selection.matched,
      summary: this.summary(),
    };
  }

  /** summary describes the ring itself and the outcomes of the rows it holds. */
  summary(): RoutingLogSummary {
    const oldest = this.#rows.values().next();
    return {
      bootId: this.#bootId,
      startedAt: this.#startedAt,
      totalRecorded: this.#totalRecorded,
      recorded: this.#rows.size,
      oldestAt: oldest.done ? null : oldest.value.entry.timestamp,
      counts: countRows([...this.#rows.values()].map((row) => row.entry)),
    };
  }

  #change(id: string, patch: RowPatch | SettlePatch): RoutingLogEntry | undefined {
    const held = this.#rows.get(id);
    if (held === undefined) return undefined;
    const nowMs = this.#stamp();
    const prev = held.entry;
    // Identity fields are restated so a loosely typed caller cannot move a row or its cursor.
    const entry = freezeRow({
      ...prev,
      ...definedOnly(patch),
      id: prev.id,
      timestamp: prev.timestamp,
      direction: prev.direction,
      updatedAt: new Date(nowMs).toISOString(),
    });
    this.#rows.set(id, { entry, updatedMs: nowMs, changeSeq: this.#changeSeq++ }); // an existing key keeps its place
    return entry;
  }

  /**
   * Every timestamp the ring writes comes from here, and never goes backwards: if the wall
   * clock steps back (NTP), a poller's cursor would otherwise sit after changes made since.
   */
  #stamp(): number {
    this.#lastStampMs = Math.max(this.#lastStampMs, this.#clock.nowMs());
    return this.#lastStampMs;
  }

  #evict(): void {
    for (const id of this.#rows.keys()) {
      if (this.#rows.size <= this.#size) return;
      this.#rows.delete(id);
    }
  }
}

/** The row open records: what the caller knows, every outcome field empty. */
function pendingRow(fields: OpenFields, at: string): RoutingLogEntry {
  return {
    ...NULL_PLACEMENT_RECORDS,
    ...definedOnly(placementOf(fields.placement ?? {})),
    id: fields.id,
    timestamp: at,
    updatedAt: at,
    direction: fields.direction,
    path: fields.path,
    model: fields.model,
    node: fields.node ?? null,
    backend: fields.backend ?? null,
    candidates: fields.candidates,
    attempt: null,
    failedOverFrom: [],
    attempts: [],
    outcome: 'pending',
    status: null,
    durationMs: null,
    totalMs: null,
    clientClosed: false,
    requestError: null,
    reason: null,
    localLoadRefused: null,
    stream: fields.stream,
    bodyBytes: fields.bodyBytes,
    budgetMs: fields.budgetMs,
  };
}

/** The placement records alone, so nothing else a caller's object carries reaches the row. */
function placementOf(records: Partial<PlacementRecords>): Partial<PlacementRecords> {
  const { pin, promptCeiling, contextCap, slots, throughput, contention, affinity } = records;
  return { pin, promptCeiling, contextCap, slots, throughput, contention, affinity };
}

/** Drops keys whose value is undefined, so an optional field left out never overwrites a value with undefined. */
function definedOnly<T extends object>(fields: T): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/** A row and its arrays are frozen once made; arrays a caller handed in are copied first so the caller keeps its own. */
function freezeRow(entry: RoutingLogEntry): RoutingLogEntry {
  return Object.freeze({
    ...entry,
    failedOverFrom: Object.isFrozen(entry.failedOverFrom) ? entry.failedOverFrom : Object.freeze([...entry.failedOverFrom]),
    attempts: Object.isFrozen(entry.attempts) ? entry.attempts : Object.freeze(entry.attempts.map((a) => Object.freeze({ ...a }))),
  });
}
