/** The session cookie: read from a Cookie header, written as HttpOnly and SameSite=Strict. */

export const SESSION_COOKIE = 'cihub_session';

/** The session id a Cookie header carries; null when none (or more than one, which is never ours alone). */
export function sessionIdFrom(cookieHeader: string | undefined): string | null {
  if (cookieHeader === undefined) return null;
  const found = cookieHeader
    .split(';')
    .map((part) => part.trim())
    .filter((part) => part.startsWith(`${SESSION_COOKIE}=`))
    .map((part) => part.slice(SESSION_COOKIE.length + 1));
  return found.length === 1 && /^[A-Za-z0-9_-]{16,128}$/.test(found[0]!) ? found[0]! : null;
}

/**
 * Set-Cookie for a session. Secure only when the request came over HTTPS (Tailscale Serve in
 * front, reported through a trusted proxy): a Hub opened at http://127.0.0.1 would otherwise
 * never get its cookie back.
 */
export function sessionCookie(id: string, maxAgeSeconds: number, secure: boolean): string {
  return `${SESSION_COOKIE}=${id}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure ? '; Secure' : ''}`;
}

export function clearedSessionCookie(secure: boolean): string {
  return sessionCookie('', 0, secure);
}
