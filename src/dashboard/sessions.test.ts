import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../util/clock.js';
import type { ApiKeyRecord } from '../store/api-keys.js';
import { DashboardSessions, MAX_SESSIONS, SESSION_TTL_MS, SIGN_IN_LINK_TTL_MS } from './sessions.js';
import { sessionCookie, sessionCookieName, sessionIdFrom } from './cookies.js';
import { CSRF_HEADER, sessionVerdict } from './session-caller.js';
import { fromOwnOrigin } from './same-origin.js';

describe('dashboard sessions', () => {
  it('a session lives for its TTL and not a millisecond longer', () => {
    const clock = new ManualClock();
    const book = new DashboardSessions(clock);
    const s = book.open('operator', null);
    clock.advance(SESSION_TTL_MS - 1);
    assert.equal(book.get(s.id)?.id, s.id);
    clock.advance(1);
    assert.equal(book.get(s.id), null);
  });

  it('a sign-in link works once, and not after its TTL', () => {
    const clock = new ManualClock();
    const book = new DashboardSessions(clock);
    const first = book.mintLink();
    assert.equal(book.consumeLink(first.token), true);
    assert.equal(book.consumeLink(first.token), false, 'a used link is spent');
    const late = book.mintLink();
    clock.advance(SIGN_IN_LINK_TTL_MS);
    assert.equal(book.consumeLink(late.token), false, 'an expired link signs nobody in');
    assert.equal(book.consumeLink('made-up'), false);
  });

  describe('after the wall clock is set back past their start', () => {
    // Their TTL can no longer be told from the wall clock: elapsedMs takes the start as long past.
    const cases: { name: string; use: (book: DashboardSessions, clock: ManualClock) => boolean }[] = [
      {
        name: 'a sign-in link lapses rather than living on for as long as the step',
        use: (book, clock) => {
          const link = book.mintLink();
          clock.advance(-2 * 60 * 60_000);
          return book.consumeLink(link.token);
        },
      },
      {
        name: 'a session signs out rather than living on for as long as the step',
        use: (book, clock) => {
          const session = book.open('operator', null);
          clock.advance(-60_000);
          return book.get(session.id) !== null;
        },
      },
    ];
    for (const c of cases)
      it(c.name, () => {
        const clock = new ManualClock();
        assert.equal(c.use(new DashboardSessions(clock), clock), false);
      });
  });

  it('holds at most MAX_SESSIONS, signing the oldest out first', () => {
    const book = new DashboardSessions(new ManualClock());
    const first = book.open('operator', null);
    for (let i = 0; i < MAX_SESSIONS; i++) book.open('operator', null);
    assert.equal(book.get(first.id), null);
  });

  it("a read-only sign-in signs out the oldest read session, never the operator's", () => {
    const book = new DashboardSessions(new ManualClock());
    const operator = book.open('operator', null);
    const firstRead = book.open('read', 'key-1');
    for (let i = 0; i < MAX_SESSIONS * 2; i++) book.open('read', 'key-1');
    assert.notEqual(book.get(operator.id), null, 'a qa:read key cannot push the operator out');
    assert.equal(book.get(firstRead.id), null);
  });

  it("reads exactly one well-formed session cookie of this Hub's name", () => {
    const name = sessionCookieName('cihub_op_a');
    const id = 'abcdefghijklmnopqrstuvwxyz';
    assert.equal(sessionIdFrom(`a=1; ${name}=${id}; b=2`, name), id);
    assert.equal(sessionIdFrom(`${name}=${id}; ${name}=bcdefghijklmnopqrstuvwxyza`, name), null);
    assert.equal(sessionIdFrom(`${name}=short`, name), null);
    assert.equal(sessionIdFrom(undefined, name), null);
    assert.equal(sessionIdFrom(`${sessionCookieName('cihub_op_b')}=${id}`, name), null, "another Hub's cookie is not this Hub's session");
    assert.equal(sessionIdFrom(`cihub_session=${id}`, name), null, 'nor is the name every Hub once shared');
    assert.match(sessionCookie(name, 'x'.repeat(20), 60, false), /HttpOnly; SameSite=Strict; Max-Age=60$/);
    assert.match(sessionCookie(name, 'x'.repeat(20), 60, true), /; Secure$/);
  });

  it('names the cookie after the operator key: the same name for the same key, another for another key, and nothing of the key in it', () => {
    const key = 'cihub_op_' + 'k'.repeat(43);
    const name = sessionCookieName(key);
    assert.match(name, /^cihub_session_[0-9a-f]{12}$/, 'a cookie-name token (RFC 6265) with the common prefix');
    assert.equal(sessionCookieName(key), name, 'a restarted Hub, same data dir, same key: the same name');
    assert.notEqual(sessionCookieName(key.replace(/k$/, 'j')), name);
    assert.ok(!name.includes('kkkk'), name);
  });
});

describe('sessionVerdict', () => {
  const readKey: ApiKeyRecord = { id: 'k1', name: 'monitor', scope: 'qa:read', createdAt: '2026-01-01T00:00:00Z', revokedAt: null };
  const setup = () => {
    const book = new DashboardSessions(new ManualClock());
    const op = book.open('operator', null);
    const ro = book.open('read', 'k1');
    return { book, op, ro };
  };
  const cookieName = sessionCookieName('cihub_op_test');
  const headers = (id: string, csrf: string | null, extra: Record<string, string> = {}) => ({
    host: '127.0.0.1:5002',
    cookie: `${cookieName}=${id}`,
    ...(csrf === null ? {} : { [CSRF_HEADER]: csrf }),
    ...extra,
  });

  const cases: readonly { name: string; run: (t: ReturnType<typeof setup>) => ReturnType<typeof sessionVerdict>; expect: string }[] = [
    {
      name: 'operator session with its token',
      run: ({ book, op }) => sessionVerdict(headers(op.id, op.csrfToken), cookieName, book, () => readKey),
      expect: 'caller:operator',
    },
    {
      name: 'read session with its token',
      run: ({ book, ro }) => sessionVerdict(headers(ro.id, ro.csrfToken), cookieName, book, () => readKey),
      expect: 'caller:qa-read',
    },
    { name: 'cookie without the token', run: ({ book, op }) => sessionVerdict(headers(op.id, null), cookieName, book, () => readKey), expect: 'refused' },
    {
      name: "another session's token",
      run: ({ book, op, ro }) => sessionVerdict(headers(op.id, ro.csrfToken), cookieName, book, () => readKey),
      expect: 'refused',
    },
    {
      name: 'a page on another origin',
      run: ({ book, op }) => sessionVerdict(headers(op.id, op.csrfToken, { origin: 'http://127.0.0.1:3000' }), cookieName, book, () => readKey),
      expect: 'refused',
    },
    {
      name: 'a read session whose key was revoked',
      run: ({ book, ro }) => sessionVerdict(headers(ro.id, ro.csrfToken), cookieName, book, () => null),
      expect: 'absent',
    },
    {
      name: "this Hub's session id under another Hub's cookie name",
      run: ({ book, op }) =>
        sessionVerdict({ ...headers(op.id, op.csrfToken), cookie: `${sessionCookieName('cihub_op_other')}=${op.id}` }, cookieName, book, () => readKey),
      expect: 'absent',
    },
    { name: 'an unknown session', run: ({ book }) => sessionVerdict(headers('z'.repeat(43), 'x'), cookieName, book, () => readKey), expect: 'absent' },
  ];
  for (const c of cases) {
    it(`${c.name}: ${c.expect}`, () => {
      const v = c.run(setup());
      assert.equal(v.kind === 'caller' ? `caller:${v.caller.kind}` : v.kind, c.expect);
    });
  }
});

describe('fromOwnOrigin', () => {
  const cases: readonly [string, Record<string, string>, boolean][] = [
    ['same origin', { host: 'hub.tail0.ts.net', origin: 'https://hub.tail0.ts.net' }, true],
    ['same host, other port (same site, other origin)', { host: '127.0.0.1:5002', origin: 'http://127.0.0.1:3000' }, false],
    ['no Origin, same-origin fetch', { host: 'h', 'sec-fetch-site': 'same-origin' }, true],
    ['no Origin, same-site fetch', { host: 'h', 'sec-fetch-site': 'same-site' }, false],
    ['no browser headers at all', { host: 'h' }, true],
    ['Origin null', { host: 'h', origin: 'null' }, false],
  ];
  for (const [name, h, ok] of cases) it(`${name}: ${ok}`, () => assert.equal(fromOwnOrigin(h), ok));
});
