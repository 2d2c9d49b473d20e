/**
 * Dashboard sessions and one-time sign-in links, in memory: a restart signs every browser out,
 * which is the safe direction for a credential that lives in a cookie. A session is what a
 * browser holds instead of a key; it carries a CSRF token the page must echo on every API call
 * (see docs/dashboard.md, "Sign-in and CSRF"). Pure bookkeeping over an injected clock.
 */
import { randomBytes } from 'node:crypto';
import { sameSecret } from '../auth/operator-credential.js';
import { elapsedMs, type Clock } from '../util/clock.js';

/** A browser stays signed in this long after signing in, then signs in again. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
/** A link `cihub dashboard` prints works once, within this time. */
export const SIGN_IN_LINK_TTL_MS = 5 * 60 * 1000;
/** Sessions held at once; past it the oldest is signed out (bounds memory against a sign-in loop). */
export const MAX_SESSIONS = 256;
/** Unused links held at once; past it the oldest stops working. */
export const MAX_SIGN_IN_LINKS = 32;

/** What a session may do: everything the operator key may, or read what a qa:read key reads. */
export type SessionRole = 'operator' | 'read';

export interface Session {
  readonly id: string;
  readonly role: SessionRole;
  /** The qa:read key a read session came from (re-checked on use, so revoking the key signs it out); null for operator sessions. */
  readonly apiKeyId: string | null;
  /** Echoed by the page in the x-cihub-csrf header. */
  readonly csrfToken: string;
  /** When it was opened: its TTL is judged from here by elapsedMs (see its doc), not by expiresAtMs. */
  readonly openedAtMs: number;
  /** When it ends, for the page to show. */
  readonly expiresAtMs: number;
}

const token = (): string => randomBytes(32).toString('base64url');

export class DashboardSessions {
  readonly #clock: Clock;
  readonly #sessions = new Map<string, Session>();
  /** Each unused link and when it was minted. */
  readonly #links = new Map<string, number>();

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  open(role: SessionRole, apiKeyId: string | null): Session {
    this.#sweep();
    const openedAtMs = this.#clock.nowMs();
    const session: Session = { id: token(), role, apiKeyId, csrfToken: token(), openedAtMs, expiresAtMs: openedAtMs + SESSION_TTL_MS };
    this.#sessions.set(session.id, session);
    while (this.#sessions.size > MAX_SESSIONS) this.#sessions.delete(this.#evictee(session));
    return session;
  }

  /**
   * Which session a full book signs out for `opened`: the oldest, except that a read sign-in
   * signs out the oldest other read session. Otherwise anyone holding a qa:read key could sign the
   * operator out by signing in MAX_SESSIONS times.
   */
  #evictee(opened: Session): string {
    if (opened.role === 'read') for (const [id, s] of this.#sessions) if (s.role === 'read' && id !== opened.id) return id;
    return this.#sessions.keys().next().value as string;
  }

  /** The live session a cookie names; null when unknown or expired. */
  get(id: string | null): Session | null {
    if (id === null) return null;
    const session = this.#sessions.get(id);
    if (session === undefined) return null;
    if (sessionLapsed(session, this.#clock.nowMs())) {
      this.#sessions.delete(id);
      return null;
    }
    return session;
  }

  close(id: string): void {
    this.#sessions.delete(id);
  }

  /** Whether a presented CSRF token is this session's (constant time). */
  csrfMatches(session: Session, presented: string | null): boolean {
    return presented !== null && sameSecret(presented, session.csrfToken);
  }

  mintLink(): { token: string; expiresAtMs: number } {
    this.#sweep();
    const link = token();
    const mintedAtMs = this.#clock.nowMs();
    this.#links.set(link, mintedAtMs);
    while (this.#links.size > MAX_SIGN_IN_LINKS) this.#links.delete(this.#links.keys().next().value as string);
    return { token: link, expiresAtMs: mintedAtMs + SIGN_IN_LINK_TTL_MS };
  }

  /** Uses up a link: true once for a live link, false ever after and for anything else. */
  consumeLink(link: string): boolean {
    const mintedAtMs = this.#links.get(link);
    this.#links.delete(link);
    return mintedAtMs !== undefined && !linkLapsed(mintedAtMs, this.#clock.nowMs());
  }

  #sweep(): void {
    const now = this.#clock.nowMs();
    for (const [id, s] of this.#sessions) if (sessionLapsed(s, now)) this.#sessions.delete(id);
    for (const [link, at] of this.#links) if (linkLapsed(at, now)) this.#links.delete(link);
  }
}

/*
 * Both lapse when the wall clock is set back past their start (elapsedMs): judged by their end,
 * a five-minute link minted before a two-hour step still signed a browser in half an hour later
 * (audit, 2026-12-07), and a session would have lived the step longer than its twelve hours.
 */
function sessionLapsed(s: Session, nowMs: number): boolean {
  return elapsedMs(nowMs, s.openedAtMs) >= SESSION_TTL_MS;
}

function linkLapsed(mintedAtMs: number, nowMs: number): boolean {
  return elapsedMs(nowMs, mintedAtMs) >= SIGN_IN_LINK_TTL_MS;
}
