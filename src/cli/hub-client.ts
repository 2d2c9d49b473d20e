/**
 * The CLI's client of the Hub's HTTP API. The CLI never opens the database: it finds its
 * Hub through hub.json in the data dir and authenticates with operator.key beside it.
 * Every failure becomes a CliError carrying one sentence for stderr.
 */
import { request } from 'undici';
import { readHubInfo, readOperatorKey } from '../config/data-dir.js';

export class CliError extends Error {
  /** When the Hub refused: its error code and message, for a command that words a refusal itself. */
  readonly hub: { readonly status: number; readonly code: string | null; readonly message: string | null } | undefined;

  constructor(message: string, hub?: { status: number; code: string | null; message: string | null }) {
    super(message);
    this.name = 'CliError';
    this.hub = hub;
  }
}

export interface HubTarget {
  readonly url: string;
  readonly operatorKey: string;
}

export function findHub(dataDir: string): HubTarget {
  const info = readHubInfo(dataDir);
  if (info === null) throw new CliError(`No Hub is running for the data dir ${dataDir} (no hub.json there). Start one with \`cihub serve\`.`);
  const operatorKey = readOperatorKey(dataDir);
  if (operatorKey === null) throw new CliError(`No operator key found in ${dataDir}. Run cihub as the user that owns that folder.`);
  return { url: info.url, operatorKey };
}

export async function callHub<T>(hub: HubTarget, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T> {
  let res;
  try {
    res = await request(`${hub.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${hub.operatorKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      headersTimeout: 30_000,
      bodyTimeout: 30_000,
    });
  } catch (err) {
    const code = (err as { code?: string }).code ?? 'no answer';
    throw new CliError(`The Hub is not running, or not answering, at ${hub.url} (${code}). Start it with \`cihub serve\`.`);
  }
  const text = await res.body.text();
  let json: unknown = null;
  try {
    json = text === '' ? null : JSON.parse(text);
  } catch {
    throw new CliError(`The Hub at ${hub.url} answered ${method} ${path} with something that is not JSON (HTTP ${res.statusCode}).`);
  }
  if (res.statusCode >= 400) {
    const err = (json as { error?: { message?: string; code?: string } } | null)?.error;
    // One sentence on stderr, even when the Hub's message runs to two.
    const said = (err?.message ?? `HTTP ${res.statusCode}`).trim().replace(/\.\s+(?=\S)/g, '; ').replace(/\.$/, '');
    throw new CliError(`The Hub refused: ${said}${err?.code ? ` (${err.code})` : ''}.`, {
      status: res.statusCode,
      code: typeof err?.code === 'string' ? err.code : null,
      message: typeof err?.message === 'string' ? err.message : null,
    });
  }
  return json as T;
}
