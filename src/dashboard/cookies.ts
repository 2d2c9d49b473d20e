/** The session cookie: its name (this Hub's own), read from a Cookie header, written as HttpOnly and SameSite=Strict. */
import { createHmac } from 'node:crypto';

/** What every Hub's session cookie name starts with; sessionCookieName adds the Hub's own part. */
export const SESSION_COOKIE_PREFIX = 'cihub_session_';
/** 12 hex digits (48 bits): two Hubs one browser reaches on one host all but never draw the same name. */
const NAME_SUFFIX_HEX_CHARS = 12;
/** What the operator key is mixed with, so the name is no value used anywhere else. */
const NAME_LABEL = 'cihub dashboard session cookie name';

/**
 * This Hub's session cookie name. Browsers keep cookies by host and send them to every port of it
 * (RFC 6265 section 8.5), so when every Hub's cookie had one name, signing in to a second Hub on
 * the same host (127.0.0.1:8081 beside :8080) replaced the first Hub's cookie and signed its page
 * out. The name is derived on the server from the Hub's own operator key:
 * - not the port the browser sees: behind Tailscale Serve that is 443 whatever the Hub listens on;
 * - not the port the Hub listens on, nor its data dir's path: every container from this image
 *   listens on 5002 with its data dir at /data (Dockerfile), so two on one host would share both;
 * - not anything minted per start: the name would change at each restart, and each name would
 *   leave a cookie in the browser, sent with every request to the host until its Max-Age;
 * - not the node UUID: it is minted on first use, never at boot, and is absent when that failed.
 * The operator key is made on the first start in the data dir, random to each Hub, and kept across
 * restarts. Any server on the host's other ports sees the name, so it is an HMAC of a fixed label
 * under the key, which tells nothing of the key.
 */
export function sessionCookieName(operatorKey: string): string {
  const suffix = createHmac('sha256', operatorKey).update(NAME_LABEL).digest('hex').slice(0, NAME_SUFFIX_HEX_CHARS);
  return `${SESSION_COOKIE_PREFIX}${suffix}`;
}

/** The session id a Cookie header carries under `name`; null when none (or more than one, which is never ours alone). */
export function sessionIdFrom(cookieHeader: string | undefined, name: string): string | null {
  if (cookieHeader === undefined) return null;
  const found = cookieHeader
    .split(';')
    .map((part) => part.trim())
    .filter((part) => part.startsWith(`${name}=`))
    .map((part) => part.slice(name.length + 1));
  return found.length === 1 && /^[A-Za-z0-9_-]{16,128}$/.test(found[0]!) ? found[0]! : null;
}

/**
 * Set-Cookie for a session. Secure only when the request came over HTTPS (Tailscale Serve in
 * front, reported through a trusted proxy): a Hub opened at http://127.0.0.1 would otherwise
 * never get its cookie back.
 */
export function sessionCookie(name: string, id: string, maxAgeSeconds: number, secure: boolean): string {
  return `${name}=${id}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure ? '; Secure' : ''}`;
}

export function clearedSessionCookie(name: string, secure: boolean): string {
  return sessionCookie(name, '', 0, secure);
}
