/**
 * GET /api/hub/logs: the Hub's own log file, for the dashboard's Logs view. Operator only: a
 * qa:read key reads pool status, the routing log and /metrics and nothing else (the spec's
 * "Reading these without an operator credential", plus issue 12), and the log names peers,
 * addresses and accounts.
 * Prompts and bodies are never logged, so none can be served here.
 */
import type { FastifyInstance } from 'fastify';
import { HubError } from '../errors.js';
import { levelNamed, LOG_LEVELS, parseSince } from '../logs/log-record.js';
import { formatCursor, parseCursor, readLogWindow } from '../logs/log-window.js';
import type { HubServices } from './services.js';

export const LOGS_PATH = '/api/hub/logs';
/** Lines one answer holds when the caller does not say. */
export const LOG_LINES_DEFAULT = 200;
/** The most lines one answer holds. */
export const LOG_LINES_MAX = 1000;

function single(query: Record<string, unknown>, name: string): string | undefined {
  const raw = query[name];
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string') throw new HubError('HUB_ERR_QUERY_INVALID', `${name} must be given once`);
  return raw;
}

export function registerLogRoutes(app: FastifyInstance, s: Pick<HubServices, 'env' | 'clock'>): void {
  app.get(LOGS_PATH, { config: { access: 'operator', query: ['level', 'since', 'limit', 'after'] } }, async (request) => {
    const query = request.query as Record<string, unknown>;
    const limitText = single(query, 'limit');
    const limit = limitText === undefined ? LOG_LINES_DEFAULT : /^\d{1,5}$/.test(limitText) ? Number(limitText) : NaN;
    if (!(limit >= 1 && limit <= LOG_LINES_MAX)) throw new HubError('HUB_ERR_QUERY_INVALID', `limit must be a whole number from 1 to ${LOG_LINES_MAX}`);

    const levelText = single(query, 'level');
    const minLevel = levelText === undefined ? null : levelNamed(levelText);
    if (levelText !== undefined && minLevel === null) throw new HubError('HUB_ERR_QUERY_INVALID', `level must be one of ${Object.keys(LOG_LEVELS).join(', ')}`);

    const sinceText = single(query, 'since');
    const sinceMs = sinceText === undefined ? null : parseSince(sinceText, s.clock.nowMs());
    if (sinceText !== undefined && sinceMs === null)
      throw new HubError('HUB_ERR_QUERY_INVALID', 'since must be an ISO 8601 time with a zone (send + as %2B) or an age such as 30s, 10m, 2h or 1d');

    const afterText = single(query, 'after');
    const after = afterText === undefined ? null : parseCursor(afterText);
    if (afterText !== undefined && after === null) throw new HubError('HUB_ERR_QUERY_INVALID', 'after must be the cursor a previous answer gave');

    const window = readLogWindow(s.env.dataDir, { filter: { sinceMs, minLevel }, limit, after });
    return { ...window, cursor: window.cursor === null ? null : formatCursor(window.cursor) };
  });
}
