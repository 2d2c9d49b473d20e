/**
 * The dashboard's only way out: the Hub's own HTTP API, same origin, with the session cookie
 * the browser adds and the CSRF token this module echoes on every call. The Hub hands the token
 * out only at sign-in, and it lives in localStorage: that is kept per origin (port included),
 * whereas the cookie also reaches every other port of this host, so the pair is what proves a
 * call came from this page.
 */
import { readStored, removeStored, writeStored } from './browser-storage';
import type { SessionInfo, SignedIn } from './types';

export const POOL = '/api/inference/pool';
const SESSION = '/api/hub/session';
const TOKEN_KEY = 'cihub.csrfToken';
const storedToken = (): string | null => readStored(TOKEN_KEY);

/**
 * Drops the token a refused call sent, if it is still the one stored: another tab may have
 * signed in since (closing this tab's session) and stored its own, which must stay.
 */
function forgetToken(sent: string | null): void {
  if (storedToken() === sent) removeStored(TOKEN_KEY);
}
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

async function send(method: string, path: string, body?: unknown, csrfToken: string | null = storedToken()): Promise<Response> {
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

/** Whether the token has changed since `sent` went out: another tab signed in, and its token is the one to use. */
const replacedSince = (sent: string | null): boolean => {
  const now = storedToken();
  return now !== null && now !== sent;
};

/**
 * A call with the session. A 401 (the Hub holds no such session: it restarted, or the session
 * ran out) or a refused token (the stored one is not this cookie's session's: storage was
 * cleared or changed) both leave nothing to act with: the token is dropped and the page goes
 * to sign-in. Unless another tab signed in meanwhile: the call is made once more with its token
 * (a refused call did nothing, write or not: the session is judged before the body is read).
 */
export async function api<T>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown, retried = false): Promise<T> {
  const sent = storedToken();
  try {
    return await read<T>(await send(method, path, body, sent));
  } catch (err) {
    if (err instanceof ApiError && (err.status === 401 || err.code === 'HUB_ERR_CSRF_REFUSED')) {
      if (!retried && replacedSince(sent)) return api<T>(method, path, body, true);
      forgetToken(sent);
      onSignedOut();
    }
    throw err;
  }
}

/** The session this browser holds, or null when signed out. The Hub answers it only alongside the stored token. */
export async function currentSession(retried = false): Promise<SessionInfo | null> {
  const sent = storedToken();
  const answer = await read<SessionInfo | { signedIn: false }>(await send('GET', SESSION, undefined, sent));
  if (!answer.signedIn) {
    if (!retried && replacedSince(sent)) return currentSession(true);
    forgetToken(sent);
    return null;
  }
  features = answer.features;
  return answer;
}

async function signInWith(credential: { key: string } | { link: string }): Promise<SessionInfo> {
  const { csrfToken, ...session } = await read<SignedIn>(await send('POST', SESSION, credential));
  writeStored(TOKEN_KEY, csrfToken);
  features = session.features;
  return session;
}

export const signIn = (key: string): Promise<SessionInfo> => signInWith({ key });

/** Spends a one-time link (see signin-link.ts); a used or expired one is a 401. */
export const signInWithLink = (link: string): Promise<SessionInfo> => signInWith({ link });

export async function signOut(): Promise<void> {
  const sent = storedToken();
  const res = await send('DELETE', SESSION, undefined, sent);
  // Kept when the Hub could not end the session, so the page can still try again with it.
  if (res.ok || res.status === 401) forgetToken(sent);
  await read(res);
}
