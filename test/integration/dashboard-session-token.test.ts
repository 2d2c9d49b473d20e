/**
 * The dashboard session's CSRF token, on a real Hub: only an answer to a caller that showed a
 * secret besides the cookie carries it. Browsers send a host's cookies to every port of that host,
 * so when the operator opens another app on the Hub's machine, that app's server receives the
 * Hub's session cookie and can replay it with whatever headers it likes (Origin included).
 * Whatever such a caller sends, the cookie must get it neither the token nor any operator route.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { startHubProcess, type HubProcess } from '../helpers/hub-process.js';

interface Session {
  readonly cookie: string;
  readonly csrfToken: string;
}

async function signIn(hub: HubProcess, key: string, cookie?: string): Promise<Session> {
  const res = await request(`${hub.url}/api/hub/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: hub.url, ...(cookie === undefined ? {} : { cookie }) },
    body: JSON.stringify({ key }),
  });
  const body = (await res.body.json()) as { csrfToken: string };
  assert.equal(res.statusCode, 200, JSON.stringify(body));
  return { cookie: String(res.headers['set-cookie']).split(';')[0]!, csrfToken: body.csrfToken };
}

async function askSession(hub: HubProcess, headers: Record<string, string>): Promise<string> {
  const res = await request(`${hub.url}/api/hub/session`, { headers });
  assert.equal(res.statusCode, 200);
  return res.body.text();
}

describe('the session token goes only to a caller that signed in', () => {
  let hub: HubProcess;

  before(async () => {
    hub = await startHubProcess();
  });
  after(async () => {
    await hub?.stop();
  });

  it('gives the session token to no caller that shows only the cookie', async () => {
    const session = await signIn(hub, hub.operatorKey);
    // As curl sends it, then dressed as the Hub's own page: a server can write any of these.
    const replays: readonly Record<string, string>[] = [
      { cookie: session.cookie },
      { cookie: session.cookie, origin: hub.url },
      { cookie: session.cookie, 'sec-fetch-site': 'same-origin' },
    ];
    for (const headers of replays) {
      const answer = await askSession(hub, headers);
      assert.deepEqual(JSON.parse(answer), { signedIn: false }, JSON.stringify(headers));
      assert.ok(!answer.includes(session.csrfToken), 'the token appears nowhere in the answer');
    }

    const mintKey = await request(`${hub.url}/api/hub/api-keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: session.cookie },
      body: JSON.stringify({ name: 'replayed', scope: 'inference' }),
    });
    await mintKey.body.dump();
    assert.equal(mintKey.statusCode, 403);
    const mintLink = await request(`${hub.url}/api/hub/session/link`, { method: 'POST', headers: { cookie: session.cookie, origin: hub.url } });
    await mintLink.body.dump();
    assert.equal(mintLink.statusCode, 403);
    const keys = await hub.api<{ keys: { name: string }[] }>('GET', '/api/hub/api-keys');
    assert.deepEqual(
      keys.json.keys.map((k) => k.name),
      [],
      'no key was made',
    );

    // The page, which holds the token, still reads its session, and the answer repeats no token.
    const own = JSON.parse(await askSession(hub, { cookie: session.cookie, origin: hub.url, 'x-cihub-csrf': session.csrfToken })) as Record<string, unknown>;
    assert.equal(own.signedIn, true);
    assert.equal(own.role, 'operator');
    assert.equal(own.csrfToken, undefined);
  });

  it('closes the older session when the same browser signs in again', async () => {
    const older = await signIn(hub, hub.operatorKey);
    const newer = await signIn(hub, hub.operatorKey, older.cookie);
    assert.notEqual(newer.cookie, older.cookie);
    const withOlder = { cookie: older.cookie, origin: hub.url, 'x-cihub-csrf': older.csrfToken };
    assert.deepEqual(JSON.parse(await askSession(hub, withOlder)), { signedIn: false });
    const status = await request(`${hub.url}/api/inference/pool/status`, { headers: withOlder });
    await status.body.dump();
    assert.equal(status.statusCode, 401, 'the older session is gone, token and all');
    assert.equal(JSON.parse(await askSession(hub, { cookie: newer.cookie, origin: hub.url, 'x-cihub-csrf': newer.csrfToken })).signedIn, true);
  });

  it("still re-checks a read-only session's key when the page asks for its session", async () => {
    const minted = await hub.api<{ id: string; key: string }>('POST', '/api/hub/api-keys', { name: 'monitor', scope: 'qa:read' });
    const session = await signIn(hub, minted.json.key);
    const headers = { cookie: session.cookie, origin: hub.url, 'x-cihub-csrf': session.csrfToken };
    assert.equal(JSON.parse(await askSession(hub, headers)).role, 'read');
    assert.equal((await hub.api('DELETE', `/api/hub/api-keys/${minted.json.id}`)).status, 200);
    assert.deepEqual(JSON.parse(await askSession(hub, headers)), { signedIn: false });
  });
});
