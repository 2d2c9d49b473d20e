/**
 * Two Hubs on one host, one browser. A browser keeps cookies by host, not by port, and sends
 * them to every port of the host (RFC 6265 section 8.5), so the dashboards of Hubs at
 * 127.0.0.1:<a> and 127.0.0.1:<b> share one cookie store. While every Hub named its session
 * cookie alike, signing in to the second replaced the first's cookie and signed the first's page
 * out. Each Hub now names its own, from its operator key, which a restart keeps.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { startHubProcess, type HubProcess } from '../helpers/hub-process.js';
import { startTogether } from '../helpers/start-together.js';

/**
 * The part of a browser's cookie store this needs: cookies kept per host and name, the port
 * ignored, a cookie replaced by a later one of the same name, dropped by Max-Age=0.
 */
class HostCookieJar {
  readonly #byHost = new Map<string, Map<string, string>>();

  take(url: string, setCookie: string | string[] | undefined): void {
    for (const line of setCookie === undefined ? [] : [setCookie].flat()) {
      const [pair, ...attributes] = line.split(';').map((part) => part.trim());
      const at = pair!.indexOf('=');
      const name = pair!.slice(0, at);
      const cookies = this.#byHost.get(new URL(url).hostname) ?? new Map<string, string>();
      this.#byHost.set(new URL(url).hostname, cookies);
      if (attributes.includes('Max-Age=0')) cookies.delete(name);
      else cookies.set(name, pair!.slice(at + 1));
    }
  }

  header(url: string): string {
    return [...(this.#byHost.get(new URL(url).hostname) ?? new Map<string, string>())].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  names(url: string): string[] {
    return [...(this.#byHost.get(new URL(url).hostname)?.keys() ?? [])];
  }
}

/** One tab: the page on one Hub's origin, with the CSRF token it keeps in that origin's storage. */
interface Tab {
  readonly hub: HubProcess;
  readonly csrfToken: string;
}

async function signIn(jar: HostCookieJar, hub: HubProcess): Promise<Tab> {
  const res = await request(`${hub.url}/api/hub/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: hub.url, cookie: jar.header(hub.url) },
    body: JSON.stringify({ key: hub.operatorKey }),
  });
  const body = (await res.body.json()) as { csrfToken: string };
  assert.equal(res.statusCode, 200, JSON.stringify(body));
  jar.take(hub.url, res.headers['set-cookie']);
  return { hub, csrfToken: body.csrfToken };
}

/** What the page asks on every load, sent as the browser sends it: every cookie of the host. */
async function sessionOf(jar: HostCookieJar, tab: Tab): Promise<{ signedIn: boolean; role?: string }> {
  const res = await request(`${tab.hub.url}/api/hub/session`, {
    headers: { cookie: jar.header(tab.hub.url), origin: tab.hub.url, 'x-cihub-csrf': tab.csrfToken },
  });
  assert.equal(res.statusCode, 200);
  return (await res.body.json()) as { signedIn: boolean; role?: string };
}

async function poolStatusCode(jar: HostCookieJar, tab: Tab): Promise<number> {
  const res = await request(`${tab.hub.url}/api/inference/pool/status`, {
    headers: { cookie: jar.header(tab.hub.url), origin: tab.hub.url, 'x-cihub-csrf': tab.csrfToken },
  });
  await res.body.dump();
  return res.statusCode;
}

describe('two Hubs on one host, signed in from one browser', () => {
  let a: HubProcess;
  let b: HubProcess;

  before(async () => {
    [a, b] = await startTogether([startHubProcess(), startHubProcess()]);
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it("signing in to the second Hub leaves the first Hub's session working, and signing out of one leaves the other's", async () => {
    const jar = new HostCookieJar();
    assert.equal(new URL(a.url).hostname, new URL(b.url).hostname, 'one host');
    assert.notEqual(new URL(a.url).port, new URL(b.url).port, 'two ports');

    const tabA = await signIn(jar, a);
    assert.equal((await sessionOf(jar, tabA)).role, 'operator', 'A signed in');
    const tabB = await signIn(jar, b);

    assert.equal(jar.names(a.url).length, 2, `one cookie per Hub in the jar: ${jar.names(a.url).join(', ')}`);
    assert.equal((await sessionOf(jar, tabA)).signedIn, true, "A's page is still signed in after B's sign-in");
    assert.equal(await poolStatusCode(jar, tabA), 200, "A's session still reads A's operator routes");
    assert.equal((await sessionOf(jar, tabB)).signedIn, true);
    assert.equal(await poolStatusCode(jar, tabB), 200);

    const out = await request(`${b.url}/api/hub/session`, {
      method: 'DELETE',
      headers: { cookie: jar.header(b.url), origin: b.url, 'x-cihub-csrf': tabB.csrfToken },
    });
    await out.body.dump();
    assert.equal(out.statusCode, 200);
    jar.take(b.url, out.headers['set-cookie']);
    assert.equal((await sessionOf(jar, tabB)).signedIn, false, 'B signed out');
    assert.equal((await sessionOf(jar, tabA)).signedIn, true, "B's sign-out cleared B's cookie, not A's");
  });

  it('a restarted Hub names its cookie as before, so a browser holds one cookie per Hub however often it restarts', async () => {
    const jar = new HostCookieJar();
    await signIn(jar, a);
    const before = jar.names(a.url);
    assert.equal(before.length, 1);
    await a.stop();
    a = await startHubProcess({ dataDir: a.dataDir });
    const tab = await signIn(jar, a);
    assert.deepEqual(jar.names(a.url), before, 'the same name, its cookie replaced');
    assert.equal((await sessionOf(jar, tab)).signedIn, true);
  });
});
