import { useEffect, useRef, useState } from 'react';
import { api } from './api';
import type { HubLogEntry, HubLogWindow } from './types';
import { SaidOnChange, useSaidOnChange } from './SaidOnChange';
import { TableWrap } from './TableWrap';

/** Following asks for lines written since the last answer this often (a bounded read of the log file's end). */
export const HUB_LOG_POLL_MS = 2_000;
/** Lines the first read asks for. */
const FIRST_LINES = 200;
/** Lines the view keeps while following; older ones drop off the bottom. */
const KEPT_LINES = 1000;
/** Reads in a row while the Hub says there is more, before waiting for the next tick. */
const CATCH_UP_READS = 5;

const LEVELS = [
  { value: 'trace', label: 'Everything (trace)' },
  { value: 'debug', label: 'Debug and above' },
  { value: 'info', label: 'Info and above' },
  { value: 'warn', label: 'Warnings and errors' },
  { value: 'error', label: 'Errors only' },
] as const;
const SINCE = [
  { value: '', label: 'Any time' },
  { value: '10m', label: 'Last 10 minutes' },
  { value: '1h', label: 'Last hour' },
  { value: '1d', label: 'Last day' },
] as const;

const LEVEL_NAMES: Readonly<Record<number, string>> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };

interface Line extends HubLogEntry {
  readonly key: number;
}

interface HubLogState {
  /** Newest first. */
  readonly lines: readonly Line[];
  readonly error: string | null;
  readonly olderNotScanned: boolean;
  readonly gap: boolean;
  readonly loaded: boolean;
  /** Whether a read for this level and age has answered: until one has, there are no lines to count, not zero lines. */
  readonly read: boolean;
  /** The level and age the lines were read for: after a change of either, the old lines stand until the new read answers. */
  readonly readFor: string | null;
}

const EMPTY: HubLogState = { lines: [], error: null, olderNotScanned: false, gap: false, loaded: false, read: false, readFor: null };

const readKey = (level: string, since: string) => `level=${level}${since === '' ? '' : `&since=${since}`}`;

/**
 * The Hub's log file, read at the chosen level and age, then followed through the Hub's cursor
 * while `follow` is on. Pausing keeps the lines on screen; following again carries on from the
 * cursor, so nothing written meanwhile is missed.
 */
function useHubLog(level: string, since: string, follow: boolean): HubLogState {
  const [state, setState] = useState<HubLogState>(EMPTY);
  const followRef = useRef(follow);
  const resume = useRef<() => void>(() => undefined);
  useEffect(() => {
    followRef.current = follow;
    if (follow) resume.current();
  }, [follow]);
  useEffect(() => {
    let stopped = false;
    let running = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let cursor: string | null = null;
    let next = 0;
    let lines: Line[] = [];
    setState(EMPTY);
    const filter = readKey(level, since);
    const tick = async () => {
      timer = undefined;
      running = true;
      try {
        for (let read = 0; read < CATCH_UP_READS; read += 1) {
          const following = cursor !== null;
          const w = await api<HubLogWindow>(
            'GET',
            `/api/hub/logs?${filter}&limit=${following ? KEPT_LINES : FIRST_LINES}${following ? `&after=${encodeURIComponent(cursor!)}` : ''}`,
          );
          if (stopped) return;
          const fresh = w.entries.map((e) => ({ ...e, key: next++ })).reverse();
          // A gap answers with the newest lines again: the view starts over from them.
          lines = (w.gap ? fresh : [...fresh, ...lines]).slice(0, KEPT_LINES);
          cursor = w.cursor;
          setState((s) => ({
            lines,
            error: null,
            olderNotScanned: following ? s.olderNotScanned : w.olderNotScanned,
            gap: s.gap || w.gap,
            loaded: true,
            read: true,
            readFor: filter,
          }));
          if (!w.more) break;
        }
      } catch (err) {
        if (!stopped) setState((s) => ({ ...s, error: (err as Error).message, loaded: true, readFor: filter }));
      } finally {
        running = false;
      }
      if (!stopped && followRef.current) timer = setTimeout(tick, HUB_LOG_POLL_MS);
    };
    resume.current = () => {
      if (!stopped && !running && timer === undefined) void tick();
    };
    void tick();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [level, since]);
  return state;
}

function fieldText(fields: Readonly<Record<string, unknown>>): string {
  return Object.entries(fields)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join('  ');
}

function levelTone(level: number | null): string {
  return level === null ? '' : level >= 50 ? 'bad' : level >= 40 ? 'warn' : '';
}

/** The Hub's own log (what `cihub logs` prints): operator only, filterable, followed live. */
export function HubLog() {
  const [level, setLevel] = useState('info');
  const [since, setSince] = useState('');
  const [follow, setFollow] = useState(true);
  const [search, setSearch] = useState('');
  const log = useHubLog(level, since, follow);
  const q = search.trim().toLowerCase();
  const shown = q === '' ? log.lines : log.lines.filter((l) => `${l.msg} ${fieldText(l.fields)}`.toLowerCase().includes(q));
  const count = `${shown.length} of ${log.lines.length} lines shown`;
  const told = useSaidOnChange(log.read && log.readFor === readKey(level, since) ? count : null);
  return (
    <section className="card" aria-labelledby="hub-log-title">
      <h2 id="hub-log-title">Hub log</h2>
      <p className="small muted">
        What this Hub writes to its log file (the lines cihub logs prints), newest first. Prompts and request bodies are never logged.
      </p>
      <div className="row">
        <div className="field">
          <label htmlFor="hub-log-level">Level</label>
          <select
            id="hub-log-level"
            value={level}
            onChange={(e) => {
              setLevel(e.target.value);
              told.changed();
            }}
          >
            {LEVELS.map((l) => (
              <option key={l.value} value={l.value}>
                {l.label}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="hub-log-since">Since</label>
          <select
            id="hub-log-since"
            value={since}
            onChange={(e) => {
              setSince(e.target.value);
              told.changed();
            }}
          >
            {SINCE.map((s) => (
              <option key={s.value} value={s.value}>
                {s.label}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="hub-log-search">Search the Hub log</label>
          <input
            id="hub-log-search"
            type="text"
            value={search}
            onChange={(e) => {
              setSearch(e.target.value);
              told.changed();
            }}
            placeholder="pairing, peer name…"
          />
        </div>
        <div className="switch">
          <input id="hub-log-follow" type="checkbox" checked={follow} onChange={(e) => setFollow(e.target.checked)} />
          <label htmlFor="hub-log-follow">Follow (new lines every 2 s)</label>
        </div>
      </div>
      {/* An alert, as the routing log's: the lines below stay as last read and would otherwise pass for current. */}
      {log.error !== null && (
        <p className="notice bad" role="alert">
          Could not read the Hub log: {log.error}.{log.lines.length > 0 ? ' The lines below are from the last read.' : ''}
        </p>
      )}
      {log.gap && (
        <p className="notice warn small">
          The log rotated past the lines this view had reached; some lines in between are not shown (cihub logs on the host has them all).
        </p>
      )}
      {/* The search filters what this view has read, not the whole file: say so, or an old line not found reads as never logged. */}
      {q !== '' && (
        <p className="small muted" data-testid="hub-log-search-scope">
          The search covers the {log.lines.length} lines read here; cihub logs on the host searches older ones.
        </p>
      )}
      {log.olderNotScanned && (
        <p className="small muted">Only the newest 4 MiB of the log were searched for lines at this level; cihub logs --level on the host reads all of it.</p>
      )}
      {(!log.loaded || log.read) && (
        <p className="small" data-testid="hub-log-count">
          {log.read ? count : 'Reading the log…'}
        </p>
      )}
      <SaidOnChange said={told.said} testId="hub-log-said" />
      <TableWrap label="Hub log lines">
        <table aria-labelledby="hub-log-title">
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Level</th>
              <th scope="col">Message</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((l) => (
              <tr key={l.key} data-testid="hub-log-line">
                <td className="mono small">{l.time === null ? '—' : new Date(l.time).toLocaleString()}</td>
                <td>{l.level === null ? '—' : <span className={`badge ${levelTone(l.level)}`}>{LEVEL_NAMES[l.level] ?? l.level}</span>}</td>
                <td>
                  {l.msg}
                  {l.cut && <span className="small muted"> (cut: the line is longer than the dashboard shows)</span>}
                  {Object.keys(l.fields).length > 0 && <div className="mono small muted">{fieldText(l.fields)}</div>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
    </section>
  );
}
