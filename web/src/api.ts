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
 * How long a read waits for the Hub's whole answer. Status, the routing log, the settings
 * catalogue, the session and the Hub log are answered from memory or one bounded file read, in
 * milliseconds; a read still unanswered after 15 s is a Hub that hangs (stopped with SIGSTOP,
 * asleep, or a tailnet path that stalled). Without a bound the polls waited forever, so no alert
 * came and every page went on showing its last figures as current.
 */
export const READ_TIMEOUT_MS = 15_000;
/**
 * How long a change waits, and a read that waits on the tailnet itself: 30 s, the wait the CLI
 * gives every route (HUB_CALL_TIMEOUT_MS, src/cli/hub-client.ts). The longest an operator write
 * is bound to wait on the Hub is a pairing request sent with a PIN: this Hub's tailnet name
 * (TAILSCALE_CALL_TIMEOUT_MS, 5 s), the request (PAIRING_CALL_TIMEOUT_MS, 10 s) and, when the
 * answer names another Hub, the signed withdrawal (10 s more), 25 s in all; Approve, Reject,
 * Unpair and Cancel request each make one 10 s call. Of the reads, a discovery scan ends within
 * 25 s (DISCOVERY_SCAN_BUDGET_MS, 20 s, plus one 5 s probe) and the Tailscale report runs two
 * 5 s CLI calls one after the other.
 */
export const SLOW_CALL_TIMEOUT_MS = 30_000;

/**
 * The request got no answer from the Hub: none at all (it stopped, is restarting, or the network
 * dropped), for which the browser's own words are "Failed to fetch", which name nothing; or none
 * within the call's bound (`waitedMs`).
 */
class HubUnreachableError extends Error {
  constructor(waitedMs: number | null, change: boolean) {
    super(
      waitedMs === null
        ? 'this Hub did not answer (it may be stopped or restarting)'
        : `this Hub did not answer within ${waitedMs / 1000} s (it may be stopped, asleep or cut off from this browser)${
            // The request may be sitting unread in the Hub's socket: a Hub that only stalled still acts on it.
            change ? '; if it was only slow, the change may still be made, and the page shows it once the Hub answers' : ''
          }`,
    );
  }
}

/** Whether a call failed for want of any answer, rather than on an answer the Hub gave. */
export const noAnswer = (err: unknown): boolean => err instanceof HubUnreachableError;

export function whenSignedOut(listener: () => void): void {
  onSignedOut = listener;
}

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** An answer read whole: the body is read under the same bound as the headers, since a Hub can stall between them. */
interface Answer {
  readonly ok: boolean;
  readonly status: number;
  readonly text: string;
}

async function send(method: Method, path: string, body: unknown, csrfToken: string | null, waitMs: number): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (csrfToken !== null) headers['x-cihub-csrf'] = csrfToken;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const signal = AbortSignal.timeout(waitMs);
  try {
    const res = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
      cache: 'no-store',
      signal,
    });
    return { ok: res.ok, status: res.status, text: await res.text() };
  } catch {
    // fetch rejects only when no response came back, or the bound ran out first; an error status is an answer, read below.
    throw new HubUnreachableError(signal.aborted ? waitMs : null, method !== 'GET');
  }
}

/** The bound a call gets unless it names its own: a read's, or a change's. */
const waitFor = (method: Method): number => (method === 'GET' ? READ_TIMEOUT_MS : SLOW_CALL_TIMEOUT_MS);

function read<T>(res: Answer): T {
  let json: unknown = null;
  try {
    json = res.text === '' ? null : (JSON.parse(res.text) as unknown);
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
export const api = <T>(method: Method, path: string, body?: unknown): Promise<T> => call<T>(method, path, body, waitFor(method));

/** A read the Hub answers only after asking the tailnet (a discovery scan, the Tailscale report): it gets a change's bound. */
export const tailnetRead = <T>(path: string): Promise<T> => call<T>('GET', path, undefined, SLOW_CALL_TIMEOUT_MS);

async function call<T>(method: Method, path: string, body: unknown, waitMs: number, retried = false): Promise<T> {
  const sent = storedToken();
  try {
    return read<T>(await send(method, path, body, sent, waitMs));
  } catch (err) {
    if (err instanceof ApiError && (err.status === 401 || err.code === 'HUB_ERR_CSRF_REFUSED')) {
      if (!retried && replacedSince(sent)) return call<T>(method, path, body, waitMs, true);
      forgetToken(sent);
      onSignedOut();
    }
    throw err;
  }
}

/** The session this browser holds, or null when signed out. The Hub answers it only alongside the stored token. */
export async function currentSession(retried = false): Promise<SessionInfo | null> {
  const sent = storedToken();
  const answer = read<SessionInfo | { signedIn: false }>(await send('GET', SESSION, undefined, sent, READ_TIMEOUT_MS));
  if (!answer.signedIn) {
    if (!retried && replacedSince(sent)) return currentSession(true);
    forgetToken(sent);
    return null;
  }
  features = answer.features;
  return answer;
}

async function signInWith(credential: { key: string } | { link: string }): Promise<SessionInfo> {
  const { csrfToken, ...session } = read<SignedIn>(await send('POST', SESSION, credential, storedToken(), SLOW_CALL_TIMEOUT_MS));
  writeStored(TOKEN_KEY, csrfToken);
  features = session.features;
  return session;
}

export const signIn = (key: string): Promise<SessionInfo> => signInWith({ key });

/** Spends a one-time link (see signin-link.ts); a used or expired one is a 401. */
export const signInWithLink = (link: string): Promise<SessionInfo> => signInWith({ link });

export async function signOut(): Promise<void> {
  const sent = storedToken();
  const res = await send('DELETE', SESSION, undefined, sent, SLOW_CALL_TIMEOUT_MS);
  // Kept when the Hub could not end the session, so the page can still try again with it.
  if (res.ok || res.status === 401) forgetToken(sent);
  read(res);
}
