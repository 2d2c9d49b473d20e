/**
 * The dashboard: the built web app at / and /assets, browser sign-in (a key typed on the
 * sign-in page, or a one-time link from `cihub dashboard`), and the session cookie with its
 * CSRF token as an alternative to the bearer key on operator routes. Registered before the
 * operator routes, so their access rule sees the session's caller. Signed out, the page is an empty shell: every
 * byte of pool data still sits behind the operator routes' guard.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { sameSecret, type Caller } from '../auth/operator-credential.js';
import { clearedSessionCookie, sessionCookie, sessionCookieName, sessionIdFrom } from '../dashboard/cookies.js';
import { fromOwnOrigin } from '../dashboard/same-origin.js';
import { CSRF_HEADER, sessionVerdict } from '../dashboard/session-caller.js';
import { DashboardSessions, SESSION_TTL_MS, type Session } from '../dashboard/sessions.js';
import { ASSET_MAX_AGE_SECONDS, loadWebApp, type WebApp } from '../dashboard/web-assets.js';
import { HubError } from '../errors.js';
import { refuseUnread } from './edge.js';
import { parseBody } from './body-schema.js';
import { unknownFieldsSubject } from './unknown-fields.js';
import type { HubServices } from './services.js';

export const SESSION_PATH = '/api/hub/session';
export const SIGN_IN_LINK_PATH = '/api/hub/session/link';
/** Where a one-time link points; the token follows. */
export const LINK_LANDING_PREFIX = '/dashboard/sign-in/';
/** The landing sends the browser to `/#signin-link=<token>`; web/src/signin-link.ts reads it. */
export const LINK_FRAGMENT_KEY = 'signin-link';
/** A sign-in body is one key or link; both are well under 100 characters. */
const SIGN_IN_BODY_LIMIT_BYTES = 4 * 1024;
/** The page loads only its own scripts and styles; nothing may frame it. React sets styles through the CSSOM, which style-src does not govern, but SVG presentation needs inline styles. */
const CONTENT_SECURITY_POLICY =
  "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller a dashboard session names; null when the request carries no usable session. */
    sessionCaller: Caller | null;
    dashboardSession: Session | null;
  }
}

const EXACTLY_ONE_CREDENTIAL = 'sign in with exactly one of key (the operator key or a qa:read key) or link (the token of a one-time sign-in link)';

const SIGN_IN_REQUEST = z
  .object(
    {
      key: z
        .string({ message: 'key must be the operator key or a qa:read API key, as text' })
        .trim()
        .min(1, 'key must not be empty')
        .max(512, 'key is longer than any key this Hub issues')
        .optional(),
      link: z
        .string({ message: 'link must be the token of a one-time sign-in link, as text' })
        .trim()
        .min(1, 'link must not be empty')
        .max(512, 'link is longer than any sign-in link this Hub issues')
        .optional(),
    },
    {
      // A field sign-in has no use for (a "remember me") was dropped, and the session lasted as long as any.
      errorMap: (issue) => ({
        message:
          issue.code === 'unrecognized_keys'
            ? `${unknownFieldsSubject(issue.keys)} not taken here: signing in takes a key or a link only`
            : 'the body must be a JSON object: { "key": "<operator key or qa:read key>" } or { "link": "<sign-in link token>" }',
      }),
    },
  )
  .strict()
  .refine((body) => (body.key === undefined) !== (body.link === undefined), { message: EXACTLY_ONE_CREDENTIAL });

export function registerDashboardRoutes(app: FastifyInstance, s: Pick<HubServices, 'clock' | 'operatorKey' | 'apiKeys' | 'logger'>): void {
  const sessions = new DashboardSessions(s.clock);
  // Every Hub on a host gets its own name, so signing in to one leaves another's cookie alone.
  const cookieName = sessionCookieName(s.operatorKey);
  const liveKey = (id: string) => s.apiKeys.list().find((k) => k.id === id && k.revokedAt === null) ?? null;
  let web: WebApp | null | undefined;
  const webApp = () => (web === undefined || web === null ? (web = loadWebApp()) : web);

  app.decorateRequest('sessionCaller', null);
  app.decorateRequest('dashboardSession', null);
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    // A bearer key, when sent, is the credential: the cookie a browser adds is not consulted.
    if (request.headers.authorization !== undefined) return;
    const verdict = sessionVerdict(request.headers, cookieName, sessions, liveKey);
    if (verdict.kind === 'caller') {
      request.sessionCaller = verdict.caller;
      request.dashboardSession = verdict.session;
    } else if (verdict.kind === 'refused' && request.routeOptions.config.access !== undefined) {
      refuseUnread(request, reply);
      throw new HubError('HUB_ERR_CSRF_REFUSED', verdict.why);
    }
  });

  const secure = (request: FastifyRequest) => request.protocol === 'https';
  const pageHeaders = (reply: FastifyReply) =>
    reply
      .header('content-security-policy', CONTENT_SECURITY_POLICY)
      .header('x-content-type-options', 'nosniff')
      .header('x-frame-options', 'DENY')
      .header('referrer-policy', 'no-referrer');

  app.get('/', async (_request, reply) => {
    const built = webApp();
    if (built === null)
      throw new HubError(
        'HUB_ERR_DASHBOARD_NOT_BUILT',
        'the dashboard is not built on this Hub (web/dist/index.html is missing); in a source checkout run npm run build, and reinstall a packaged Hub (its package and image carry the built dashboard)',
      );
    return pageHeaders(reply).header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(built.index);
  });

  app.get('/assets/:name', async (request, reply) => {
    const asset = webApp()?.assets.get((request.params as { name: string }).name);
    if (asset === undefined) throw new HubError('HUB_ERR_NOT_FOUND', `no dashboard asset ${request.url.split('?')[0]}`);
    return reply
      .header('cache-control', `public, max-age=${ASSET_MAX_AGE_SECONDS}, immutable`)
      .header('x-content-type-options', 'nosniff')
      .type(asset.contentType)
      .send(asset.body);
  });

  /** Who a sign-in's credential lets in, before any session exists: a refused credential changes nothing. */
  const grantFor = (credential: { key?: string; link?: string }): { role: Session['role']; apiKeyId: string | null; via: 'key' | 'link' } => {
    if (credential.link !== undefined) {
      if (!sessions.consumeLink(credential.link))
        throw new HubError(
          'HUB_ERR_UNAUTHORIZED',
          'that sign-in link was already used or has expired; run cihub dashboard for a new one, or sign in with a key',
        );
      return { role: 'operator', apiKeyId: null, via: 'link' };
    }
    const key = credential.key!;
    if (sameSecret(key, s.operatorKey)) return { role: 'operator', apiKeyId: null, via: 'key' };
    const record = s.apiKeys.lookup(key);
    if (record === null) throw new HubError('HUB_ERR_UNAUTHORIZED', 'that key is not the operator key or a live API key of this Hub');
    if (record.scope !== 'qa:read')
      throw new HubError(
        'HUB_ERR_UNAUTHORIZED',
        'an inference key admits apps to the proxy and reads nothing here; sign in with the operator key, or a qa:read key to look without changing anything',
      );
    return { role: 'read', apiKeyId: record.id, via: 'key' };
  };

  // The only answer that carries the CSRF token: the caller showed a secret besides the cookie.
  app.post(SESSION_PATH, { bodyLimit: SIGN_IN_BODY_LIMIT_BYTES }, async (request, reply) => {
    // Login CSRF: another origin must not sign this browser in to a session of its choosing.
    if (!fromOwnOrigin(request.headers)) throw new HubError('HUB_ERR_CSRF_REFUSED', "signing in is accepted only from a page on this Hub's own origin");
    const grant = grantFor(parseBody(SIGN_IN_REQUEST, request.body));
    // The page is about to hold the new session's token in place of the old one, so nothing of
    // this browser can use the older session any more; left open, it would serve only whoever
    // else holds its cookie and token.
    const older = sessions.get(sessionIdFrom(request.headers.cookie, cookieName));
    if (older !== null) sessions.close(older.id);
    const session = sessions.open(grant.role, grant.apiKeyId);
    s.logger.info({ role: session.role, via: grant.via }, 'dashboard sign-in');
    reply.header('set-cookie', sessionCookie(cookieName, session.id, SESSION_TTL_MS / 1000, secure(request))).header('cache-control', 'no-store');
    return { ...describe(session, app), csrfToken: session.csrfToken };
  });

  app.get(SESSION_PATH, async (request, reply) => {
    // Browsers send this cookie to every port of the host, so a server behind another port (an
    // app the operator opens) receives it too and can replay it with any headers it likes. The
    // token is what it cannot have: the page keeps it in per-origin storage. So the session is
    // told only to a caller showing both, as the onRequest hook judged them, including the
    // re-check of a read-only session's key (revoked, it is closed there).
    reply.header('cache-control', 'no-store');
    // Signed out is an answer, not an error: the page asks this on every load.
    const session = request.dashboardSession;
    return session === null ? { signedIn: false } : describe(session, app);
  });

  const signedIn = async (request: FastifyRequest) => {
    if (request.dashboardSession === null) throw new HubError('HUB_ERR_UNAUTHORIZED', `signing out needs the session cookie and its ${CSRF_HEADER} header`);
  };
  // Checked on request, ahead of the body check, so a caller with no session hears that first.
  app.delete(SESSION_PATH, { config: { body: 'none' }, onRequest: signedIn }, async (request, reply) => {
    const session = request.dashboardSession!;
    sessions.close(session.id);
    reply.header('set-cookie', clearedSessionCookie(cookieName, secure(request)));
    return { signedOut: true };
  });

  app.post(SIGN_IN_LINK_PATH, { config: { access: 'operator', body: 'none' } }, async () => {
    const link = sessions.mintLink();
    s.logger.info({ expiresAt: new Date(link.expiresAtMs).toISOString() }, 'dashboard sign-in link minted');
    return { path: `${LINK_LANDING_PREFIX}${link.token}`, expiresAt: new Date(link.expiresAtMs).toISOString() };
  });

  // Nothing is spent here: previews, link checkers and prefetchers send GETs (and HEADs) too. The
  // token moves into the fragment, which no server receives and no Referer carries, and the page
  // spends it with a sign-in POST from this origin.
  app.get(`${LINK_LANDING_PREFIX}:token`, async (request, reply) =>
    reply
      .header('cache-control', 'no-store')
      .header('referrer-policy', 'no-referrer')
      .redirect(`/#${LINK_FRAGMENT_KEY}=${encodeURIComponent((request.params as { token: string }).token)}`, 303),
  );
}

/** Where discovery lives once a Hub has it (spec, "How Hubs find each other"). */
export const DISCOVERY_PATH = '/api/inference/pool/peers/discoverable';

/** The session as the page reads it, with the optional routes this Hub has (so the page asks no route that would 404). Never its token. */
function describe(session: Session, app: FastifyInstance): { signedIn: true; role: Session['role']; expiresAt: string; features: { discovery: boolean } } {
  return {
    signedIn: true,
    role: session.role,
    expiresAt: new Date(session.expiresAtMs).toISOString(),
    features: { discovery: app.hasRoute({ method: 'GET', url: DISCOVERY_PATH }) },
  };
}
