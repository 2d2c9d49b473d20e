/**
 * Real Chromium for the dashboard tests: Debian's /usr/bin/chromium driven by playwright-core
 * (never a downloaded browser; .ci/run installs the package when it is missing). Helpers to
 * sign a page in the ways a person does, to collect console errors, to run axe-core inside the
 * page, and to keep screenshots under test-artifacts/ (git-ignored).
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { eventually, REPO_ROOT, runCli, type HubProcess } from '../helpers/hub-process.js';
import { scaled } from '../helpers/time-scale.js';
import { POOL_API } from '../helpers/pool-fixture.js';

export const CHROMIUM_PATH = '/usr/bin/chromium';
export const ARTIFACTS_DIR = join(REPO_ROOT, 'test-artifacts');
/** Bounds every wait on the page; the waits themselves end at the event. */
export const PAGE_TIMEOUT_MS = scaled(60_000);
export const PHONE = { width: 360, height: 780 } as const;
export const DESKTOP = { width: 1440, height: 900 } as const;

export async function launchBrowser(): Promise<Browser> {
  // --no-sandbox: the tests run as root in CI, where Chromium refuses its sandbox.
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}

export interface WatchedPage {
  readonly context: BrowserContext;
  readonly page: Page;
  /** Console errors and uncaught page errors seen so far. */
  readonly errors: string[];
}

export async function openPage(browser: Browser, viewport: { width: number; height: number } = DESKTOP): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  page.setDefaultTimeout(PAGE_TIMEOUT_MS);
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  return { context, page, errors };
}

/** `cihub dashboard --json --no-open` on the Hub's data dir: the one-time link. */
export async function signInLink(hub: HubProcess): Promise<string> {
  const res = await runCli(['dashboard', '--json', '--no-open'], { dataDir: hub.dataDir });
  assert.equal(res.code, 0, res.stderr);
  const link = JSON.parse(res.stdout) as { url: string; expiresAt: string; openedWith: string | null };
  assert.equal(link.openedWith, null, '--no-open opens nothing');
  return link.url;
}

/** Signs a page in through the link and waits for the signed-in shell. */
export async function signInByLink(page: Page, hub: HubProcess): Promise<void> {
  await page.goto(await signInLink(hub));
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/** Where the page keeps its session's CSRF token (web/src/api.ts). */
export const CSRF_TOKEN_STORAGE_KEY = 'cihub.csrfToken';

/** The CSRF token the signed-in page holds: the Hub tells it to nobody after sign-in, so tests read it where the page does. */
export async function storedCsrfToken(page: Page): Promise<string> {
  const token = (await page.evaluate(`localStorage.getItem('${CSRF_TOKEN_STORAGE_KEY}')`)) as string | null;
  assert.ok(token !== null, 'the signed-in page holds its token');
  return token;
}

/** Types a key into the sign-in page, as a person would. */
export async function signInByKey(page: Page, hub: HubProcess, key: string): Promise<void> {
  await page.goto(`${hub.url}/`);
  await page.getByLabel('Operator key or API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

export async function gotoPool(page: Page): Promise<void> {
  await page.getByRole('link', { name: 'Hub Pool', exact: true }).click();
  await page.getByTestId('pool-badge').waitFor();
}

/** Runs axe-core in the page and returns the serious and critical violations (rule id: first target). */
/**
 * Answers every discovery scan the page asks for with these candidates, as GET
 * /peers/discoverable lists them (the test Hubs are on no tailnet, so a real scan finds nobody),
 * and returns how many scans the page has asked for so far.
 */
export async function answerDiscovery(page: Page, candidates: readonly unknown[]): Promise<() => number> {
  let scans = 0;
  await page.route(`**${POOL_API}/peers/discoverable*`, (route) => {
    scans += 1;
    return route.fulfill({ json: { candidates, notHubs: [], directories: [] } });
  });
  return () => scans;
}

export async function seriousA11yViolations(page: Page): Promise<string[]> {
  const source = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  // Evaluated through the DevTools protocol, which the page's CSP does not govern (an injected <script> would be refused).
  await page.evaluate(`${source}\n;void 0`);
  const result = (await page.evaluate('axe.run(document, { resultTypes: ["violations"] })')) as {
    violations: { id: string; impact: string | null; nodes: { target: string[] }[] }[];
  };
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.id}: ${v.nodes
          .map((n) => n.target.join(' '))
          .slice(0, 3)
          .join(' | ')}`,
    );
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const path = join(ARTIFACTS_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/**
 * Waits until a JavaScript expression is true in the page. Not page.waitForFunction with a string:
 * when the first reading is false it polls by eval inside the page, which the dashboard's
 * Content-Security-Policy refuses (a CI run failed on it); page.evaluate goes over the DevTools
 * protocol, which the policy does not govern.
 */
export async function untilTrueInPage(page: Page, expression: string): Promise<void> {
  await eventually(async () => (await page.evaluate(expression)) === true, expression);
}

/**
 * Whether the element `selector` picks is in the accessibility tree Chromium hands a screen
 * reader, read over the DevTools protocol. Inside an inert subtree (the page behind a modal
 * dialog) an element is left out, its live region with it: what is written there is never said.
 */
export async function exposedToScreenReaders(page: Page, selector: string): Promise<boolean> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const { root } = await cdp.send('DOM.getDocument', { depth: 0 });
    const { nodeId } = await cdp.send('DOM.querySelector', { nodeId: root.nodeId, selector });
    assert.notEqual(nodeId, 0, `${selector} is on the page`);
    const { nodes } = await cdp.send('Accessibility.getPartialAXTree', { nodeId, fetchRelatives: false });
    return nodes[0]?.ignored === false;
  } finally {
    await cdp.detach();
  }
}

/** Whether the page scrolls sideways at its current width (a layout break). */
export async function overflowsSideways(page: Page): Promise<boolean> {
  return (await page.evaluate('document.documentElement.scrollWidth > document.documentElement.clientWidth')) as boolean;
}
