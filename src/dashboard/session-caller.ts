/**
 * Who a request is when it carries the dashboard's session cookie instead of a bearer key. The
 * cookie alone never authenticates: the page must also echo the session's CSRF token in
 * x-cihub-csrf, and the request must come from this Hub's own origin. A read session answers
 * as the qa:read key it came from, so the operator routes' one access rule applies unchanged.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Caller } from '../auth/operator-credential.js';
import type { ApiKeyRecord } from '../store/api-keys.js';
import { sessionIdFrom } from './cookies.js';
import { fromOwnOrigin } from './same-origin.js';
import type { DashboardSessions, Session } from './sessions.js';

export const CSRF_HEADER = 'x-cihub-csrf';

export type SessionVerdict =
  /** No session cookie, or one this Hub does not know: the bearer key (if any) decides. */
  | { readonly kind: 'absent' }
  | { readonly kind: 'caller'; readonly caller: Caller; readonly session: Session }
  | { readonly kind: 'refused'; readonly why: string };

/** `cookieName` is this Hub's own (sessionCookieName); a cookie of another name is another Hub's, and not read. */
export function sessionVerdict(
  headers: IncomingHttpHeaders,
  cookieName: string,
  sessions: DashboardSessions,
  liveKey: (id: string) => ApiKeyRecord | null,
): SessionVerdict {
  const session = sessions.get(sessionIdFrom(headers.cookie, cookieName));
  if (session === null) return { kind: 'absent' };
  const presented = typeof headers[CSRF_HEADER] === 'string' ? (headers[CSRF_HEADER] as string) : null;
  if (!sessions.csrfMatches(session, presented)) return { kind: 'refused', why: `a dashboard session must send its CSRF token in ${CSRF_HEADER}` };
  if (!fromOwnOrigin(headers)) return { kind: 'refused', why: "a dashboard session is accepted only from a page on this Hub's own origin" };
  if (session.role === 'operator') return { kind: 'caller', caller: { kind: 'operator' }, session };
  const key = session.apiKeyId === null ? null : liveKey(session.apiKeyId);
  if (key === null || key.scope !== 'qa:read') {
    sessions.close(session.id);
    return { kind: 'absent' };
  }
  return { kind: 'caller', caller: { kind: 'qa-read', key }, session };
}
