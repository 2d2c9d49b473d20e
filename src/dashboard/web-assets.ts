/**
 * The built web app (web/dist, written by `npm install` through the prepare script), read once
 * from disk and held in memory: a few hundred KiB that every page load asks for. Assets under
 * /assets carry a content hash in their names, so they are cached for a year; index.html names
 * them and is revalidated on every load.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join, resolve } from 'node:path';

/** web/dist, from dist/src/dashboard/ at run time. */
export const WEB_DIST_DIR = resolve(import.meta.dirname, '../../../web/dist');

/** A year: the longest cache browsers honour; a new build has new names. */
export const ASSET_MAX_AGE_SECONDS = 365 * 24 * 60 * 60;

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

export interface WebAsset {
  readonly body: Buffer;
  readonly contentType: string;
}

export interface WebApp {
  readonly index: Buffer;
  /** By file name under /assets. */
  readonly assets: ReadonlyMap<string, WebAsset>;
}

/** The built app, or null when web/dist has no index.html (the build did not run). */
export function loadWebApp(dir: string = WEB_DIST_DIR): WebApp | null {
  const indexPath = join(dir, 'index.html');
  if (!existsSync(indexPath)) return null;
  const assets = new Map<string, WebAsset>();
  const assetDir = join(dir, 'assets');
  if (existsSync(assetDir)) {
    for (const name of readdirSync(assetDir)) {
      const contentType = CONTENT_TYPES[extname(name)];
      if (contentType !== undefined) assets.set(name, { body: readFileSync(join(assetDir, name)), contentType });
    }
  }
  return { index: readFileSync(indexPath), assets };
}
