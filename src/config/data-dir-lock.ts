/**
 * One Hub per data dir. Two Hubs on one dir would share hub.db, the node identity and the peer
 * rows; the second would overwrite hub.json, delete it on the way out (the pid in it is then its
 * own), and tell every peer, signed with the shared identity, that this node is leaving while
 * the first still serves. So a Hub claims its data dir before it writes or opens anything else
 * there, and a second claim is refused.
 *
 * The claim is an exclusive SQLite lock on hub.lock, taken by a transaction that stays open for
 * the life of the process. SQLite takes it with fcntl locks, which the kernel drops however the
 * process ends (SIGKILL and a crash included), so a claim cannot outlive its Hub and nothing has
 * to guess whether an old one is stale. better-sqlite3 is already the store's driver: no other
 * native code, and the same on macOS and Linux. The file stays when the Hub stops; its being
 * there means nothing, only the lock on it does.
 *
 * Nothing here opens hub.lock with node:fs: closing any descriptor of a file drops every fcntl
 * lock the process holds on it, so a second claim made in the same process (the demo, tests)
 * would free the first. SQLite keeps track of that itself.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { sqliteCode } from '../store/store-errors.js';
import { pidAlive } from '../util/pid-alive.js';
import { readHubInfo, type HubInfo } from './data-dir.js';
import { dataDirUnusable } from './data-dir-unusable.js';

export const HUB_LOCK_FILE = 'hub.lock';

/** The running Hub's hold on its data dir, let go as the last step of stopping. */
export interface DataDirClaim {
  release(): void;
}

/** Another live process holds the data dir; `cihub serve` reports it as a usage error (exit 2). */
export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    /** What the holder wrote in hub.json; null while it is still starting. */
    readonly holder: Pick<HubInfo, 'pid' | 'url'> | null,
  ) {
    super(dataDirInUseText(dataDir, holder));
    this.name = 'DataDirInUseError';
  }
}

export function dataDirInUseText(dataDir: string, holder: Pick<HubInfo, 'pid' | 'url'> | null): string {
  const who = holder === null ? 'another Hub that is still starting' : `the Hub running as pid ${holder.pid} at ${holder.url}`;
  return `The data dir ${dataDir} is already in use by ${who}; stop that Hub first, or start this one with another --data-dir.`;
}

/** node:fs's mkdirSync as the claim calls it; tests inject the answers of a disk they cannot mount. */
export type MakeDirectory = (path: string, options: { recursive?: boolean; mode: number }) => unknown;

/**
 * Creates the data dir if it is missing and claims it for this process, or throws
 * DataDirInUseError without having changed anything a running Hub relies on, or
 * DataDirUnusableError when this account cannot create the dir or open hub.lock in it.
 */
export function claimDataDir(dataDir: string, mkdir: MakeDirectory = mkdirSync): DataDirClaim {
  try {
    mkdir(dataDir, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw dataDirUnusable(dataDir, dataDir, unmaskedMkdirError(dataDir, err, mkdir), 'directory');
  }
  const lockPath = join(dataDir, HUB_LOCK_FILE);
  let lock: Database.Database;
  try {
    // No busy wait: a held lock is held by a live Hub, and waiting would not free it.
    lock = new Database(lockPath, { timeout: 0 });
  } catch (err) {
    throw dataDirUnusable(dataDir, lockPath, err);
  }
  try {
    // The journal in memory: the file stays empty and no hub.lock-journal appears beside it.
    lock.pragma('journal_mode = MEMORY');
    lock.exec('BEGIN EXCLUSIVE');
  } catch (err) {
    lock.close();
    if (sqliteCode(err) === 'SQLITE_BUSY') throw new DataDirInUseError(dataDir, liveHolder(dataDir));
    throw dataDirUnusable(dataDir, lockPath, err);
  }
  return {
    release: () => {
      if (lock.open) lock.close();
    },
  };
}

/**
 * Node's recursive mkdir answers ENOENT for a refusal it has no case for, EROFS among them
 * (nodejs/node#47098, open on Node 20): a data dir to be made on a read-only disk, or under a
 * unit's ProtectSystem=strict, ended the start with "cihub failed: ENOENT: no such file or
 * directory, mkdir", exit 1. A plain mkdir of the first directory missing on the way to it says
 * what refused it.
 */
function unmaskedMkdirError(dataDir: string, err: unknown, mkdir: MakeDirectory): unknown {
  if ((err as NodeJS.ErrnoException | null)?.code !== 'ENOENT') return err;
  let missing = dataDir;
  while (dirname(missing) !== missing && !existsSync(dirname(missing))) missing = dirname(missing);
  try {
    mkdir(missing, { mode: 0o700 });
  } catch (plain) {
    // EEXIST: something stands there after all, such as a symlink to a target that is gone; the
    // recursive mkdir's own error says no more or less than this one would.
    return (plain as NodeJS.ErrnoException | null)?.code === 'EEXIST' ? err : plain;
  }
  return err;
}

/** The holder as hub.json names it, unless that file was left by a process that has since ended. */
function liveHolder(dataDir: string): HubInfo | null {
  const info = readHubInfo(dataDir);
  return info !== null && pidAlive(info.pid) ? info : null;
}
