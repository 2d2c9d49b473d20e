/**
 * The dashboard's only way out: the Hub's own HTTP API, same origin, with the session cookie
 * the browser adds and the CSRF token this module echoes on every call.
 */
import type { SessionInfo } from './types';

export const POOL = '/api/inference/pool';
let csrfToken: string | null = null;
let features: SessionInfo['features'] = { discovery: false };

/** Whether this Hub has the discovery route (read at sign-in). */
export const hasDiscovery = (): boolean => features.discovery;
let onSignedOut: () => void = () => undefined;

export class ApiError extends Error {
  readonly status: number;
  /** The Hub's catalogue code; null when the answer carried none. */
  readonly code: string | null;
  constructor(status: number, code: string | null, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/**
 * The request got no answer from the Hub at all (it stopped, is restarting, or the network
 * dropped): the browser's own words for that are "Failed to fetch", which name nothing.
 */
class HubUnreachableError extends Error {
  constructor() {
    super('this Hub did not answer (it may be stopped or restarting)');
  }
}

export function whenSignedOut(listener: () => void): void {
  onSignedOut = listener;
}

async function send(method: string, path: string, body?: unknown): Promise<Response> {
  const headers: Record<string, string> = {};
  if (csrfToken !== null) headers['x-cihub-csrf'] = csrfToken;
  if (body !== undefined) headers['content-type'] = 'application/json';
  try {
    return await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'same-origin', cache: 'no-store' });
  } catch {
    // fetch rejects only when no response came back; an error status is an answer, read below.
    throw new HubUnreachableError();
  }
}

async function read<T>(res: Response): Promise<T> {
  const text = await res.text();
  let json: unknown = null;
  try {
    json = text === '' ? null : (JSON.parse(text) as unknown);
  } catch {
    // Something between the browser and the Hub (a proxy's error page) answered instead.
    throw new ApiError(res.status, null, `HTTP ${res.status}, and the answer was not the Hub's JSON`);
  }
  if (!res.ok) {
    const err = (json as { error?: { code?: string; message?: string } } | null)?.error;
    throw new ApiError(res.status, err?.code ?? null, err?.message ?? `HTTP ${res.status}`);
  }
  return json as T;
}

export async function api<T>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T> {
  const res = await send(method, path, body);
  if (res.status === 401) {
    csrfToken = null;
    onSignedOut();
  }
  return read<T>(res);
}

/** The session this browser holds, or null when signed out. */
export async function currentSession(): Promise<SessionInfo | null> {
  const answer = await read<SessionInfo | { signedIn: false }>(await send('GET', '/api/hub/session'));
  if (!answer.signedIn) return null;
  const session = answer;
  csrfToken = session.csrfToken;
  features = session.features;
  return session;
}

export async function signIn(key: string): Promise<SessionInfo> {
  const session = await read<SessionInfo>(await send('POST', '/api/hub/session', { key }));
  csrfToken = session.csrfToken;
  features = session.features;
  return session;
}

export async function signOut(): Promise<void> {
  await read(await send('DELETE', '/api/hub/session'));
  csrfToken = null;
}
