/**
 * The data dir's small files: the operator key (one line, mode 0600) that the CLI and the
 * dashboard present as a Bearer token, and hub.json, where a running Hub says it listens so
 * the CLI on the same machine can find it.
 */
import { randomBytes } from 'node:crypto';
import { accessSync, chmodSync, constants, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic, type UnsyncedWrite } from '../util/atomic-write.js';
import { dataDirUnusable } from './data-dir-unusable.js';

export const OPERATOR_KEY_FILE = 'operator.key';
export const HUB_INFO_FILE = 'hub.json';

/** Where a running Hub listens, as it wrote it. */
export interface HubInfo {
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  readonly startedAt: string;
  /**
   * Random per process, also answered by the unauthenticated GET /api/hub/boot. The CLI sends
   * the operator key only to a listener that answers this id, so a hub.json left behind by a
   * crash cannot hand the key to whatever took the port since. Absent in files older Hubs wrote.
   */
  readonly bootId?: string;
  /**
   * True when this Hub proves at GET /api/hub/boot that it holds the operator key (auth/boot-proof.ts).
   * The CLI then sends the key only to a listener that gives the proof; a hub.json without it was
   * written by an older Hub, whose boot id alone is checked. A listener cannot set it: the file is
   * the operator's, beside operator.key.
   */
  readonly bootProof?: boolean;
  /**
   * The cihub version of the running Hub (package.json's), so a CLI upgraded beside it can tell
   * the Hub has not been restarted onto the new code yet. Absent in files Hubs from before this
   * field wrote, which the CLI therefore reads as older than itself.
   */
  readonly version?: string;
}

/**
 * Reads the operator key, minting it on first start. A key file others can read is tightened to
 * 0600. `onUnsynced` hears a minted key that is in place but whose directory sync failed;
 * `onEmptyReplaced` hears that the file was there but empty, so the key every client held is
 * gone and a new one was minted. Throws DataDirUnusableError when this account cannot read or
 * write the file.
 */
export function loadOrCreateOperatorKey(
  dir: string,
  onUnsynced: (u: UnsyncedWrite) => void = () => {},
  onEmptyReplaced: (path: string) => void = () => {},
): string {
  const path = join(dir, OPERATOR_KEY_FILE);
  let wasEmpty = false;
  try {
    const key = readFileSync(path, 'utf8').trim();
    if (key.length > 0) {
      if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
      return key;
    }
    wasEmpty = true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw dataDirUnusable(dir, path, err);
  }
  const key = `cihub_op_${randomBytes(32).toString('base64url')}`;
  let unsynced;
  try {
    unsynced = writeFileAtomic(path, `${key}\n`, { mode: 0o600 });
  } catch (err) {
    throw dataDirUnusable(dir, path, err);
  }
  if (unsynced !== null) onUnsynced(unsynced);
  if (wasEmpty) onEmptyReplaced(path);
  return key;
}

/** The operator key for the CLI; null when the file is missing or empty. */
export function readOperatorKey(dir: string): string | null {
  try {
    const key = readFileSync(join(dir, OPERATOR_KEY_FILE), 'utf8').trim();
    return key.length > 0 ? key : null;
  } catch {
    return null;
  }
}

/**
 * Writes hub.json; answers what could not be made durable (util/atomic-write), for the caller to
 * log. Throws DataDirUnusableError when this account cannot write it there (a read-only disk, a
 * directory in its place).
 */
export function writeHubInfo(dir: string, info: HubInfo): UnsyncedWrite | null {
  const path = join(dir, HUB_INFO_FILE);
  try {
    return writeFileAtomic(path, `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600 });
  } catch (err) {
    throw dataDirUnusable(dir, path, err);
  }
}

export function readHubInfo(dir: string): HubInfo | null {
  try {
    const info = JSON.parse(readFileSync(join(dir, HUB_INFO_FILE), 'utf8')) as Partial<HubInfo>;
    return typeof info.url === 'string' && typeof info.port === 'number' ? (info as HubInfo) : null;
  } catch {
    return null;
  }
}

/**
 * Whether this account is refused reading the data dir or its hub.json (EACCES, EPERM): the dir
 * is another account's, as a Hub run as a service user keeps it (0700). readHubInfo reads that as
 * no hub.json, and "start a Hub" would be the wrong advice; a missing dir or file is no refusal.
 */
export function dataDirRefused(dir: string, access: (path: string, mode: number) => void = accessSync): boolean {
  const checks: readonly [string, number][] = [
    [dir, constants.R_OK | constants.X_OK],
    [join(dir, HUB_INFO_FILE), constants.R_OK],
  ];
  for (const [path, mode] of checks) {
    try {
      access(path, mode);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EACCES' || code === 'EPERM') return true;
    }
  }
  return false;
}

/** Removes hub.json if it is still this process's (a newer Hub may have replaced it). */
export function removeHubInfo(dir: string, pid: number): void {
  if (readHubInfo(dir)?.pid === pid) rmSync(join(dir, HUB_INFO_FILE), { force: true });
}
