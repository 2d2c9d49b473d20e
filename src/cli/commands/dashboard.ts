/**
 * `cihub dashboard`: a one-time sign-in link to this Hub's dashboard. The link works once, for
 * five minutes, and signs the browser that opens it in as the operator; the CLI is already
 * trusted with the operator key, so it may hand a browser the same power for one session.
 */
import { spawn } from 'node:child_process';
import { SIGN_IN_LINK_PATH } from '../../http/dashboard-routes.js';
import { callHub, findHub } from '../hub-client.js';
import type { CommonOptions } from './pool.js';

/** The process environment, as main.ts reads it once. */
type Env = Readonly<Record<string, string | undefined>>;

export interface DashboardLink {
  readonly url: string;
  readonly expiresAt: string;
  /** The program asked to open the link; null when none was (--no-open, or no browser at hand). */
  readonly openedWith: string | null;
}

/** The program that opens a URL in the user's browser here, or null when there is no desktop to show one. */
export function browserOpener(platform: NodeJS.Platform, env: Env): string | null {
  if (platform === 'darwin') return 'open';
  if (platform === 'win32') return null; // `start` is a cmd built-in; print the link instead.
  return env.DISPLAY || env.WAYLAND_DISPLAY ? 'xdg-open' : null;
}

export async function dashboardLink(opts: CommonOptions & { open: boolean; env: Env }): Promise<string> {
  const hub = findHub(opts.dataDir);
  const minted = await callHub<{ path: string; expiresAt: string }>(hub, 'POST', SIGN_IN_LINK_PATH);
  const url = `${hub.url}${minted.path}`;
  const opener = opts.open ? browserOpener(process.platform, opts.env) : null;
  if (opener !== null) {
    // Detached and unwaited: a missing xdg-open or a browser that fails leaves the printed link.
    const child = spawn(opener, [url], { detached: true, stdio: 'ignore' });
    child.on('error', () => undefined);
    child.unref();
  }
  const link: DashboardLink = { url, expiresAt: minted.expiresAt, openedWith: opener };
  if (opts.json) return `${JSON.stringify(link, null, 2)}\n`;
  return [
    opener === null
      ? 'Open this link in a browser to sign in to the dashboard:'
      : `Opening the dashboard in your browser (${opener}). If it does not open, use this link:`,
    '',
    `  ${url}`,
    '',
    `It works once, until ${minted.expiresAt}. Anyone who opens it first is signed in as the operator, so do not share it.`,
    '',
  ].join('\n');
}
