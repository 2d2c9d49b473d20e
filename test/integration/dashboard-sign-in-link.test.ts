/**
 * The one-time link `cihub dashboard` prints, on a real Hub. Its landing spends nothing: it sends
 * the browser to `/#signin-link=<token>`, and the page spends the token with a sign-in POST from
 * the Hub's own origin, which answers with the cookie and the CSRF token as a key sign-in does.
 * A GET from a chat app's preview or a link checker therefore uses nothing up, and the token
 * travels in a fragment, which no server and no Referer sees.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { sessionCookieName } from '../../src/dashboard/cookies.js';
import { startHubProcess, type HubProcess } from '../helpers/hub-process.js';

async function mintLink(hub: HubProcess): Promise<{ path: string; token: string }> {
  const { path } = (await hub.api<{ path: string }>('POST', '/api/hub/session/link')).json;
  return { path, token: path.slice(path.lastIndexOf('/') + 1) };
}

const spend = (hub: HubProcess, link: string, origin: string) =>
  request(`${hub.url}/api/hub/session`, { method: 'POST', headers: { 'content-type': 'application/json', origin }, body: JSON.stringify({ link }) });

describe('a one-time sign-in link', () => {
  let hub: HubProcess;

  before(async () => {
    hub = await startHubProcess();
  });
  after(async () => {
    await hub?.stop();
  });

  it('signs a browser in through a one-time link without spending it on a GET', async () => {
    const { path, token } = await mintLink(hub);
    // A preview fetches it first, then the operator's browser: both are sent on, neither signed in.
    for (const visitor of ['preview', 'browser']) {
      const landing = await request(`${hub.url}${path}`);
      await landing.body.dump();
      assert.equal(landing.statusCode, 303, visitor);
      assert.equal(landing.headers.location, `/#signin-link=${token}`, visitor);
      assert.equal(landing.headers['set-cookie'], undefined, `${visitor}: no session from a GET`);
    }

    const spent = await spend(hub, token, hub.url);
    const body = (await spent.body.json()) as { role: string; csrfToken: string };
    assert.equal(spent.statusCode, 200, JSON.stringify(body));
    assert.equal(body.role, 'operator');
    assert.match(body.csrfToken, /^[A-Za-z0-9_-]{43}$/);
    const cookie = String(spent.headers['set-cookie']);
    assert.match(cookie, new RegExp(`^${sessionCookieName(hub.operatorKey)}=[A-Za-z0-9_-]+; .*HttpOnly`), "under this Hub's own cookie name");
    const status = await request(`${hub.url}/api/inference/pool/status`, {
      headers: { cookie: cookie.split(';')[0]!, origin: hub.url, 'x-cihub-csrf': body.csrfToken },
    });
    await status.body.dump();
    assert.equal(status.statusCode, 200, 'the session works');

    const again = await spend(hub, token, hub.url);
    const refused = (await again.body.json()) as { error: { code: string; message: string } };
    assert.equal(again.statusCode, 401);
    assert.equal(refused.error.code, 'HUB_ERR_UNAUTHORIZED');
    assert.match(refused.error.message, /already used or has expired/);
    assert.equal(again.headers['set-cookie'], undefined);
  });

  it("is refused from another origin's page, and stays unspent for the Hub's own", async () => {
    const { token } = await mintLink(hub);
    const foreign = await spend(hub, token, 'http://127.0.0.1:1');
    await foreign.body.dump();
    assert.equal(foreign.statusCode, 403);
    const own = await spend(hub, token, hub.url);
    await own.body.dump();
    assert.equal(own.statusCode, 200);
  });
});
