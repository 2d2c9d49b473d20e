/**
 * Choosing which rows one GET of the routing log returns. Two shapes: the newest placements
 * (a first look, or a dashboard that redraws), and the changes at or after a cursor (a poller
 * that must not lose a row). Pure over the rows it is handed, so the paging rules are tested
 * without a ring.
 */
import type { RoutingLogEntry } from './entry.js';

/** DEFAULT_PAGE_LIMIT rows answer a call without limit, whatever the ring's size, so a dashboard read stays the same cost on a big ring (the page then follows the cursor every 2 s, which reads only the rows changed since). */
export const DEFAULT_PAGE_LIMIT = 200;
/** MAX_PAGE_LIMIT is the most rows one call returns: the largest ring the configuration allows. */
export const MAX_PAGE_LIMIT = 10_000;

/** A held row with the numbers the cursor sorts on, so no page re-parses ISO strings. */
export interface CursorRow {
  readonly entry: RoutingLogEntry;
  /** entry.updatedAt as epoch ms. */
  readonly updatedMs: number;
  /** Order of the row's last change among all changes, to order changes that share a millisecond. */
  readonly changeSeq: number;
}

export interface Selection {
  /** Newest first. */
  readonly entries: readonly RoutingLogEntry[];
  /** Rows that qualified before limit cut them. */
  readonly matched: number;
  /** The greatest updatedAt among entries; null when entries is empty. */
  readonly newestChange: string | null;
}

/** pageLimit turns the caller's limit into one the cursor applies: absent → 200, then 1 to 10,000. */
export function pageLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return DEFAULT_PAGE_LIMIT;
  return Math.min(MAX_PAGE_LIMIT, Math.max(1, Math.trunc(limit)));
}

/** newestPlacements takes rows in placement order (oldest first) and returns the last limit of them. */
export function newestPlacements(rows: readonly CursorRow[], limit: number): Selection {
  const kept = rows.slice(-limit);
  let newest: CursorRow | null = null;
  for (const row of kept) if (newest === null || row.updatedMs > newest.updatedMs) newest = row;
  return { entries: kept.map((row) => row.entry).reverse(), matched: rows.length, newestChange: newest?.entry.updatedAt ?? null };
}

/**
 * changesSince returns the rows changed at or after sinceMs. When limit cuts them it keeps the
 * OLDEST changes: the newest kept change becomes the next cursor, and everything after it is
 * still ahead of that cursor, so a poller that follows nextSince loses nothing. (Keeping the
 * newest would move the cursor past changes it never returned.) The cursor is inclusive because
 * two changes can share a millisecond: the one returned and one made a moment later.
 */
export function changesSince(rows: readonly CursorRow[], sinceMs: number, limit: number): Selection {
  const matching = rows.filter((row) => row.updatedMs >= sinceMs);
  matching.sort((a, b) => a.updatedMs - b.updatedMs || a.changeSeq - b.changeSeq);
  const kept = matching.slice(0, limit);
  return {
    entries: kept.map((row) => row.entry).reverse(),
    matched: matching.length,
    newestChange: kept.at(-1)?.entry.updatedAt ?? null,
  };
}
