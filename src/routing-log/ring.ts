/**
 * RoutingLog: the bounded, in-memory, process-local record of routing decisions behind
 * GET /api/inference/pool/routing-log. Nothing survives a restart; bootId tells a poller so.
 *
 * Rows are frozen and replaced whole on every change, so a page already handed to a reader
 * (or serialised half-way) never changes under it. A Map keyed by request id holds them in
 * placement order, which is also eviction order.
 *
 * open, update and settle run on every proxied request, so each builds its new row as one
 * object literal of fixed shape (no spreads, no Object.entries) and reuses the ISO string of
 * the millisecond it last stamped; the holder the cursor sorts on is changed in place. The
 * routing log once cost the Hub about a third of its CPU per request (bench/README.md).
 */
import { withOverridden } from './overridden.js';
import { randomUUID } from 'node:crypto';
import type { EngineKind } from '../engines/engine-kind.js';
import { HubError } from '../errors.js';
import type { Clock } from '../util/clock.js';
import { changesSince, newestPlacements, pageLimit, type CursorRow, type Selection } from './cursor.js';
import {
  type Attempt,
  type Direction,
  type PlacementRecords,
  type RequestError,
  type RoutingLogEntry,
  type RoutingLogPage,
  type RoutingLogSummary,
} from './entry.js';
import { parseSince } from './since.js';
import { countRows } from './summary.js';

// The HTTP layer validates since with the same parser the ring pages with.
export { parseSince, type ParsedSince } from './since.js';

/**
 * Longest text any row field keeps, in UTF-16 units: model ids, paths, node names and reasons
 * are a few dozen characters, so this bounds a row without cutting anything real. Strings reach
 * the ring from apps (model) and peers (node names, reasons), and one unbounded field once grew
 * the log to 947 MB in twenty requests (issue 9, defect 6). Longer text ends in an ellipsis.
 */
export const MAX_ROW_TEXT_CHARS = 512;

export interface RoutingLogOptions {
  /** Most rows held; the oldest placement goes first. Config owns the default and range. */
  readonly size: number;
  readonly clock: Clock;
  /** Fixed id for tests; otherwise randomId() is asked once. */
  readonly bootId?: string;
  readonly randomId?: () => string;
  /** Called once with each row as it settles (metrics count here, so they agree with the log). */
  readonly onSettle?: (entry: RoutingLogEntry) => void;
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
  readonly backendId?: string | null;
  /** The trace the request belongs to; absent or null: none. */
  readonly traceId?: string | null;
  /** What each placement step did; a record left out starts null. */
  readonly placement?: Partial<PlacementRecords>;
}

/** A change to a row. Who and when it was placed never change; only settle sets the outcome. Undefined fields are ignored. */
export type RowPatch = Partial<Omit<RoutingLogEntry, 'id' | 'timestamp' | 'updatedAt' | 'direction' | 'outcome' | 'traceId'>>;
export type SettlePatch = RowPatch & { readonly outcome: 'served' | 'failed' };

export interface PageQuery {
  readonly limit?: number;
  /** An ISO time with a zone; the HTTP layer has already refused any other. */
  readonly since?: string;
}

export class RoutingLog {
  readonly #size: number;
  readonly #clock: Clock;
  readonly #onSettle: ((entry: RoutingLogEntry) => void) | undefined;
  readonly #bootId: string;
  readonly #randomId: () => string;
  readonly #startedAt: string;
  readonly #rows = new Map<string, HeldRow>();
  /**
   * Rows the ring dropped while their request was still running, by id, kept only so their
   * settle still reaches onSettle: the oldest placements go first, so without this the longest
   * streams were the requests /metrics never counted. No page or summary reads them. Each leaves
   * as its request settles (the walk settles in a finally), so this holds at most the requests
   * in flight. Unused without onSettle.
   */
  readonly #evictedPending = new Map<string, RoutingLogEntry>();
  #totalRecorded = 0;
  #changeSeq = 0;
  #lastStampMs = Number.NEGATIVE_INFINITY;
  /** The ISO form of #isoMs, so changes that share a millisecond format it once. */
  #isoMs = Number.NaN;
  #iso = '';

  constructor(options: RoutingLogOptions) {
    if (!Number.isInteger(options.size) || options.size < 1) {
      throw new RangeError(`routing log size must be a positive integer, got ${options.size}`);
    }
    this.#size = options.size;
    this.#clock = options.clock;
    this.#randomId = options.randomId ?? randomUUID;
    this.#onSettle = options.onSettle;
    this.#bootId = options.bootId ?? this.#randomId();
    this.#startedAt = this.#isoOf(this.#stamp());
  }

  /**
   * open records a pending row for a request just placed and returns it. The id asked for is
   * used unless a held row has it: then the new row gets a fresh id, so an id a peer chose can
   * never replace or alter a row already here (issue 9, defect 14). Callers use the returned id.
   */
  open(fields: OpenFields): RoutingLogEntry {
    const nowMs = this.#stamp();
    let id = fields.id;
    // An evicted row still running keeps its id too, or its settle would land on the new row.
    while (this.#rows.has(id) || this.#evictedPending.has(id)) id = this.#randomId();
    const entry = pendingRow(fields, id, this.#isoOf(nowMs));
    this.#rows.set(id, new HeldRow(entry, nowMs, this.#changeSeq++));
    this.#totalRecorded++;
    this.#evict();
    return entry;
  }

  /** update changes a held row and returns the new copy; undefined when the row is gone (evicted). */
  update(id: string, patch: RowPatch): RoutingLogEntry | undefined {
    const entry = this.#change(id, patch);
    if (entry === undefined) this.#changeEvicted(id, patch);
    return entry;
  }

  /**
   * settle records a row's final outcome, with whatever else the walk learned; undefined when the
   * row is gone. onSettle hears of every request once, evicted or not.
   */
  settle(id: string, patch: SettlePatch): RoutingLogEntry | undefined {
    const settled = this.#change(id, patch);
    if (settled === undefined) {
      const evicted = this.#changeEvicted(id, patch);
      if (evicted === undefined) return undefined;
      this.#evictedPending.delete(id);
      this.#onSettle?.(withOverridden(evicted));
      return undefined;
    }
    // Which demotions the walk overrode is known only now, from the node the row settled on.
    const entry = this.#replace(id, withOverridden(settled));
    this.#onSettle?.(entry);
    return entry;
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

  /** Puts an already-built copy of a held row in its place (same change stamp as the change that built it). */
  #replace(id: string, entry: RoutingLogEntry): RoutingLogEntry {
    const held = this.#rows.get(id)!;
    held.entry = entry;
    return entry;
  }

  #change(id: string, patch: RowPatch | SettlePatch): RoutingLogEntry | undefined {
    const held = this.#rows.get(id);
    if (held === undefined) return undefined;
    const nowMs = this.#stamp();
    const entry = changedRow(held.entry, patch, this.#isoOf(nowMs));
    // In place: the holder never leaves the ring (a page copies out its entries before returning), and the row keeps its place.
    held.entry = entry;
    held.updatedMs = nowMs;
    held.changeSeq = this.#changeSeq++;
    return entry;
  }

  /** Applies a change to a row evicted while pending, so what onSettle gets is whole; undefined when there is none. */
  #changeEvicted(id: string, patch: RowPatch | SettlePatch): RoutingLogEntry | undefined {
    const prev = this.#evictedPending.get(id);
    if (prev === undefined) return undefined;
    const entry = changedRow(prev, patch, this.#isoOf(this.#stamp()));
    this.#evictedPending.set(id, entry);
    return entry;
  }

  #isoOf(ms: number): string {
    if (ms !== this.#isoMs) {
      this.#iso = new Date(ms).toISOString();
      this.#isoMs = ms;
    }
    return this.#iso;
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
      const entry = this.#rows.get(id)!.entry;
      if (entry.outcome === 'pending' && this.#onSettle !== undefined) this.#evictedPending.set(id, entry);
      this.#rows.delete(id);
    }
  }
}

/** What the ring holds per row: the current frozen entry and the numbers the cursor sorts on. */
class HeldRow implements CursorRow {
  constructor(
    public entry: RoutingLogEntry,
    public updatedMs: number,
    public changeSeq: number,
  ) {}
}

/** Shared by every row whose list is empty: frozen, so no row can change another's. */
const NONE: readonly never[] = Object.freeze([]);

/**
 * The row open records: what the caller knows, every outcome field empty. The field order is
 * the wire's (JSON keeps it), and changedRow must build rows in the same order.
 */
function pendingRow(fields: OpenFields, id: string, at: string): RoutingLogEntry {
  // Only the seven records are read, so nothing else a caller's object carries reaches the row.
  const p = fields.placement;
  return Object.freeze({
    pin: p?.pin ?? null,
    promptCeiling: p?.promptCeiling ?? null,
    contextCap: p?.contextCap ?? null,
    slots: p?.slots ?? null,
    throughput: p?.throughput ?? null,
    contention: p?.contention ?? null,
    affinity: p?.affinity ?? null,
    withheld: p?.withheld ?? null,
    id,
    timestamp: at,
    updatedAt: at,
    direction: fields.direction,
    path: clip(fields.path),
    model: clipOrNull(fields.model),
    node: clipOrNull(fields.node ?? null),
    backend: fields.backend ?? null,
    backendId: fields.backendId ?? null,
    candidates: fields.candidates,
    attempt: null,
    failedOverFrom: NONE,
    attempts: NONE,
    outcome: 'pending',
    status: null,
    durationMs: null,
    totalMs: null,
    clientClosed: false,
    stoppedReadingMs: null,
    requestError: null,
    reason: null,
    stream: fields.stream,
    bodyBytes: fields.bodyBytes,
    budgetMs: fields.budgetMs,
    traceId: fields.traceId ?? null,
  });
}

/**
 * prev with patch applied: a field the patch leaves undefined keeps its value (null is a value).
 * Identity fields come from prev whatever the patch says, so a loosely typed caller cannot move
 * a row or its cursor; a key that is not a row field never reaches the row.
 */
function changedRow(prev: RoutingLogEntry, patch: Partial<RoutingLogEntry>, updatedAt: string): RoutingLogEntry {
  return Object.freeze({
    pin: or(patch.pin, prev.pin),
    promptCeiling: or(patch.promptCeiling, prev.promptCeiling),
    contextCap: or(patch.contextCap, prev.contextCap),
    slots: or(patch.slots, prev.slots),
    throughput: or(patch.throughput, prev.throughput),
    contention: or(patch.contention, prev.contention),
    affinity: or(patch.affinity, prev.affinity),
    withheld: or(patch.withheld, prev.withheld),
    id: prev.id,
    timestamp: prev.timestamp,
    updatedAt,
    direction: prev.direction,
    path: patch.path === undefined ? prev.path : clip(patch.path),
    model: patch.model === undefined ? prev.model : clipOrNull(patch.model),
    node: patch.node === undefined ? prev.node : clipOrNull(patch.node),
    backend: or(patch.backend, prev.backend),
    backendId: or(patch.backendId, prev.backendId),
    candidates: or(patch.candidates, prev.candidates),
    attempt: or(patch.attempt, prev.attempt),
    failedOverFrom: patch.failedOverFrom === undefined ? prev.failedOverFrom : ownNames(patch.failedOverFrom),
    attempts: patch.attempts === undefined ? prev.attempts : ownAttempts(patch.attempts),
    outcome: or(patch.outcome, prev.outcome),
    status: or(patch.status, prev.status),
    durationMs: or(patch.durationMs, prev.durationMs),
    totalMs: or(patch.totalMs, prev.totalMs),
    clientClosed: or(patch.clientClosed, prev.clientClosed),
    stoppedReadingMs: or(patch.stoppedReadingMs, prev.stoppedReadingMs),
    requestError: patch.requestError === undefined ? prev.requestError : ownRequestError(patch.requestError),
    reason: patch.reason === undefined ? prev.reason : clipOrNull(patch.reason),
    stream: or(patch.stream, prev.stream),
    bodyBytes: or(patch.bodyBytes, prev.bodyBytes),
    budgetMs: or(patch.budgetMs, prev.budgetMs),
    // Set when the row opens, from a validated header: never changed by a patch.
    traceId: prev.traceId,
  });
}

/** value, unless it is undefined (a field the patch left out). */
function or<T>(value: T | undefined, fallback: T): T {
  return value === undefined ? fallback : value;
}

/** text cut to MAX_ROW_TEXT_CHARS, ending in an ellipsis when cut. */
function clip(text: string): string {
  return text.length <= MAX_ROW_TEXT_CHARS ? text : `${text.slice(0, MAX_ROW_TEXT_CHARS - 1)}\u2026`;
}

function clipOrNull(text: string | null): string | null {
  return text === null ? null : clip(text);
}

/**
 * A list a caller handed in, as the row keeps it: a frozen list whose names are all in bounds
 * as is, any other copied (names clipped) and frozen so the caller keeps its own.
 */
function ownNames(list: readonly string[]): readonly string[] {
  if (Object.isFrozen(list) && list.every((name) => name.length <= MAX_ROW_TEXT_CHARS)) return list;
  return list.length === 0 ? NONE : Object.freeze(list.map(clip));
}

function ownAttempts(list: readonly Attempt[]): readonly Attempt[] {
  if (Object.isFrozen(list) && list.every((a) => Object.isFrozen(a) && a.node.length <= MAX_ROW_TEXT_CHARS && a.reason.length <= MAX_ROW_TEXT_CHARS))
    return list;
  return list.length === 0 ? NONE : Object.freeze(list.map((a) => Object.freeze({ ...a, node: clip(a.node), reason: clip(a.reason) })));
}

function ownRequestError(error: RequestError | null): RequestError | null {
  if (error === null) return null;
  return Object.freeze({ signature: clip(error.signature), basis: error.basis, confirms: clipOrNull(error.confirms) });
}
