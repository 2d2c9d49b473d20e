/**
 * The dashboard's session cookie and the scheme the browser used. Behind Tailscale Serve the
 * browser speaks HTTPS to https://<name>/ and Serve, on this machine, passes the request on over
 * plain HTTP with X-Forwarded-Proto: https and the browser's Host. The cookie must then be
 * Secure; opened directly at http://127.0.0.1 it must not be, or the browser would never send it
 * back. The forwarded scheme counts only from a proxy HUB_TRUST_PROXY lists (loopback by default).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { startHubProcess, type HubProcess } from '../helpers/hub-process.js';
import { startTogether } from '../helpers/start-together.js';

const NAME = 'hub-a.tail0.ts.net';
/** What Serve adds in front of the Hub (the caller's tailnet address, the scheme, the browser's Host). */
const VIA_SERVE = { host: NAME, origin: `https://${NAME}`, 'x-forwarded-proto': 'https', 'x-forwarded-for': '100.101.1.9' };

interface SignedIn {
  readonly status: number;
  readonly setCookie: string;
  readonly csrfToken: string;
}

async function signIn(hub: HubProcess, headers: Record<string, string>): Promise<SignedIn> {
  const res = await request(`${hub.url}/api/hub/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ key: hub.operatorKey }),
  });
  const body = (await res.body.json()) as { csrfToken: string };
  const setCookie = res.headers['set-cookie'];
  return { status: res.statusCode, setCookie: typeof setCookie === 'string' ? setCookie : '', csrfToken: body.csrfToken };
}

const direct = (hub: HubProcess) => ({ origin: hub.url });
const attributes = (setCookie: string) =>
  setCookie
    .split(';')
    .slice(1)
    .map((a) => a.trim());
const sessionOf = (setCookie: string) => setCookie.split(';')[0]!;

describe('the session cookie is Secure exactly when the browser came over HTTPS', () => {
  let hub: HubProcess;
  let untrusting: HubProcess;

  before(async () => {
    [hub, untrusting] = await startTogether([
      startHubProcess({ env: { HUB_NODE_FQDN: NAME } }),
      startHubProcess({ env: { HUB_NODE_FQDN: NAME, HUB_TRUST_PROXY: 'false' } }),
    ]);
  });
  after(async () => {
    await Promise.all([hub?.stop(), untrusting?.stop()]);
  });

  it('opened at http://127.0.0.1: HttpOnly, SameSite=Strict, not Secure', async () => {
    const s = await signIn(hub, direct(hub));
    assert.equal(s.status, 200);
    assert.deepEqual(attributes(s.setCookie), ['Path=/', 'HttpOnly', 'SameSite=Strict', 'Max-Age=43200']);
  });

  it('reached through Tailscale Serve (X-Forwarded-Proto https from loopback): Secure, and the session works there', async () => {
    const s = await signIn(hub, VIA_SERVE);
    assert.equal(s.status, 200);
    assert.deepEqual(attributes(s.setCookie), ['Path=/', 'HttpOnly', 'SameSite=Strict', 'Max-Age=43200', 'Secure']);
    const status = await request(`${hub.url}/api/inference/pool/status`, {
      headers: { ...VIA_SERVE, cookie: sessionOf(s.setCookie), 'x-cihub-csrf': s.csrfToken },
    });
    await status.body.dump();
    assert.equal(status.statusCode, 200);
    const out = await request(`${hub.url}/api/hub/session`, {
      method: 'DELETE',
      headers: { ...VIA_SERVE, cookie: sessionOf(s.setCookie), 'x-cihub-csrf': s.csrfToken },
    });
    await out.body.dump();
    assert.equal(out.statusCode, 200);
    assert.match(String(out.headers['set-cookie']), /Max-Age=0; Secure$/, 'signing out clears it with the same attributes');
  });

  it('the one-time link from cihub dashboard sets the cookie the same way when the page spends it', async () => {
    const spend = async (headers: Record<string, string>) => {
      const { path } = (await hub.api<{ path: string }>('POST', '/api/hub/session/link')).json;
      const res = await request(`${hub.url}/api/hub/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ link: path.split('/').pop() }),
      });
      await res.body.dump();
      assert.equal(res.statusCode, 200);
      return String(res.headers['set-cookie']);
    };
    assert.doesNotMatch(await spend(direct(hub)), /Secure/);
    assert.match(await spend(VIA_SERVE), /; Secure$/);
  });

  it('a HEAD on the one-time link neither spends it nor signs anyone in', async () => {
    const { path } = (await hub.api<{ path: string }>('POST', '/api/hub/session/link')).json;
    const head = await request(`${hub.url}${path}`, { method: 'HEAD' });
    await head.body.dump();
    assert.equal(head.statusCode, 303);
    assert.equal(head.headers['set-cookie'], undefined, 'no session for whoever sent the HEAD');
    const spent = await request(`${hub.url}/api/hub/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...direct(hub) },
      body: JSON.stringify({ link: path.split('/').pop() }),
    });
    await spent.body.dump();
    assert.equal(spent.statusCode, 200, 'the link still signs its browser in');
    assert.match(String(spent.headers['set-cookie']), /HttpOnly/);
  });

  it('X-Forwarded-Proto from a caller that is not a trusted proxy is ignored: with HUB_TRUST_PROXY=false, not even loopback', async () => {
    const s = await signIn(untrusting, VIA_SERVE);
    assert.equal(s.status, 200);
    assert.ok(!attributes(s.setCookie).includes('Secure'), s.setCookie);
  });
});
