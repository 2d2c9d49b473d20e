/**
 * Owner-only modes for what the Hub keeps in its data dir (issue 9, defect 16): the dir itself
 * 0700, and every file the Hub writes there without group or other bits, including ones an older
 * version created under a loose umask (hub.db and its WAL were 0644). They hold the operator key,
 * the sealing secret, peer tokens and the routing store.
 *
 * Only the Hub's own entries are touched. The data dir can be a directory that held other things
 * first (`--data-dir ~/projects/x`); what the Hub did not write there keeps the mode its owner
 * gave it. Symbolic links are left alone too: chmod would follow one out of the data dir.
 */
import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { IDENTITY_SECRET_FILE } from '../identity/node-identity.js';
import { LOG_DIR, LOG_FILE } from '../logs/log-file.js';
import { DATABASE_FILE_NAME } from '../store/database.js';
import { HUB_INFO_FILE, OPERATOR_KEY_FILE } from './data-dir.js';
import { HUB_LOCK_FILE } from './data-dir-lock.js';
import { dataDirUnusable } from './data-dir-unusable.js';
import { SETTINGS_FILE_NAME } from './settings-file.js';

/** The files the Hub writes at the top of its data dir (SQLite makes the -wal and -shm beside hub.db). */
const HUB_FILES: ReadonlySet<string> = new Set([
  DATABASE_FILE_NAME,
  `${DATABASE_FILE_NAME}-wal`,
  `${DATABASE_FILE_NAME}-shm`,
  OPERATOR_KEY_FILE,
  SETTINGS_FILE_NAME,
  IDENTITY_SECRET_FILE,
  HUB_INFO_FILE,
  HUB_LOCK_FILE,
]);

/** A settings.json that was not valid JSON is kept aside under this prefix (config/settings-file.ts). */
const SETTINGS_ASIDE_PREFIX = `${SETTINGS_FILE_NAME}.invalid-`;

/** Whether a name at the top of the data dir is a file the Hub wrote. */
export function isHubFile(name: string): boolean {
  return HUB_FILES.has(name) || name.startsWith(SETTINGS_ASIDE_PREFIX);
}

/** Whether a name in logs/ is the Hub's log or one of its rotations (hub.log, hub.log.1, ...). */
export function isHubLogFile(name: string): boolean {
  return name === LOG_FILE || (name.startsWith(`${LOG_FILE}.`) && /^\d+$/.test(name.slice(LOG_FILE.length + 1)));
}

/**
 * Creates the data dir if it is missing, and takes group and other bits off it and off everything
 * the Hub keeps in it. Throws DataDirUnusableError for an entry this account may not change (the
 * kernel refuses chmod, EPERM, on one another account owns); tests inject that `chmod`, since
 * root may change any file.
 */
export function ensureDataDir(dir: string, chmod: (path: string, mode: number) => void = chmodSync): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tighten = (path: string, kind: 'dir' | 'file') => ownerOnly(path, kind, chmod, dir);
  tighten(dir, 'dir');
  for (const name of readdirSync(dir)) if (isHubFile(name)) tighten(join(dir, name), 'file');
  const logs = join(dir, LOG_DIR);
  if (tighten(logs, 'dir')) for (const name of readdirSync(logs)) if (isHubLogFile(name)) tighten(join(logs, name), 'file');
}

/**
 * Drops every group and other permission bit from `path` if it is a `kind` (not a link); the
 * owner's bits are kept as they are. Answers whether it was one.
 */
function ownerOnly(path: string, kind: 'dir' | 'file', chmod: (path: string, mode: number) => void, dataDir: string): boolean {
  let stats;
  try {
    stats = lstatSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
  if (kind === 'dir' ? !stats.isDirectory() : !stats.isFile()) return false;
  if ((stats.mode & 0o077) !== 0) {
    try {
      chmod(path, stats.mode & 0o700);
    } catch (err) {
      throw dataDirUnusable(dataDir, path, err, kind === 'dir' ? 'directory' : 'file');
    }
  }
  return true;
}
