/** Polling and the live routing log: the dashboard's only timers, each owned by a component. */
import { createContext, useCallback, useContext, useEffect, useRef, useState } from 'react';
import { api, POOL } from './api';
import type { RoutingLogPage, RoutingRow } from './types';

export interface Polled<T> {
  readonly data: T | null;
  /** When `data` arrived, by this browser's clock (Date.now()); null before the first answer. */
  readonly receivedAt: number | null;
  readonly error: string | null;
  /** Reads again now (after a change the page made itself). */
  refresh(): Promise<void>;
}

/**
 * Moves on each time something outside the page changed what the page reads: the setup guide,
 * a dialog over the page whose Approve, Reject or fix the page's own polls would otherwise show
 * only at their next turn, up to 30 s later on Home. Every poll below a new value reads at once.
 */
export const RereadSignal = createContext(0);

/**
 * Calls `load` now and every `everyMs` while mounted (and while `active`), and at once whenever
 * RereadSignal moves on; a failed read keeps the last data.
 */
export function usePoll<T>(load: () => Promise<T>, everyMs: number, active = true): Polled<T> {
  const [answer, setAnswer] = useState<{ data: T | null; receivedAt: number | null }>({ data: null, receivedAt: null });
  const [error, setError] = useState<string | null>(null);
  const reread = useContext(RereadSignal);
  const loadRef = useRef(load);
  loadRef.current = load;
  /** Reads are numbered as they start: one that answers after a later one has landed holds older figures, and is dropped. */
  const started = useRef(0);
  const landed = useRef(0);
  const refresh = useCallback(async () => {
    const n = ++started.current;
    try {
      const data = await loadRef.current();
      if (n < landed.current) return;
      landed.current = n;
      setAnswer({ data, receivedAt: Date.now() });
      setError(null);
    } catch (err) {
      if (n < landed.current) return;
      landed.current = n;
      setError((err as Error).message);
    }
  }, []);
  useEffect(() => {
    if (!active) return undefined;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = async () => {
      await refresh();
      if (!stopped) timer = setTimeout(tick, everyMs);
    };
    void tick();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [everyMs, active, refresh, reread]);
  return { ...answer, error, refresh };
}

/** How often the routing views ask for rows changed since the last answer: cheap (an in-memory ring), and what makes them live. */
export const ROUTING_LOG_POLL_MS = 2_000;
/** Rows the dashboard keeps: the Hub keeps 200 by default, and a call without limit returns no more. */
export const KEPT_ROUTING_ROWS = 200;

export interface LiveLog {
  /** Newest first. */
  readonly rows: readonly RoutingRow[];
  readonly summary: RoutingLogPage['summary'] | null;
  readonly error: string | null;
}

/**
 * The routing log, followed through its cursor: the first read takes the newest rows, each
 * later one only rows placed or changed since (the newest copy of a row wins). A changed bootId
 * means the Hub restarted and its log is new, so the view starts over.
 */
export function useRoutingLog(): LiveLog {
  const [state, setState] = useState<LiveLog>({ rows: [], summary: null, error: null });
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let since: string | null = null;
    let bootId: string | null = null;
    const byId = new Map<string, RoutingRow>();
    const tick = async () => {
      try {
        const page = await api<RoutingLogPage>(
          'GET',
          `${POOL}/routing-log?limit=${KEPT_ROUTING_ROWS}${since === null ? '' : `&since=${encodeURIComponent(since)}`}`,
        );
        if (bootId !== null && page.summary.bootId !== bootId) byId.clear();
        bootId = page.summary.bootId;
        since = page.nextSince;
        for (const row of page.entries) byId.set(row.id, row);
        const rows = [...byId.values()].sort((a, b) => b.timestamp.localeCompare(a.timestamp) || b.id.localeCompare(a.id)).slice(0, KEPT_ROUTING_ROWS);
        if (byId.size > KEPT_ROUTING_ROWS) for (const id of [...byId.keys()]) if (!rows.some((r) => r.id === id)) byId.delete(id);
        if (!stopped) setState({ rows, summary: page.summary, error: null });
      } catch (err) {
        if (!stopped) setState((s) => ({ ...s, error: (err as Error).message }));
      }
      if (!stopped) timer = setTimeout(tick, ROUTING_LOG_POLL_MS);
    };
    void tick();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, []);
  return state;
}

/** Re-renders every second while mounted, for countdowns and "seconds ago". */
export function useNow(everyMs = 1_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(t);
  }, [everyMs]);
  return now;
}
