/**
 * Why this Hub's pool identity cannot be used, as one typed value, so that every place showing
 * the failure (a refusing route, status, doctor, the dashboard) gives the fix for that cause. A
 * full disk was reported with the fix for a broken secret ("write a secret into identity.secret,
 * or remove that file"), and a full disk under hub.db with that fix beside "retry in a moment":
 * neither helps, and a stored key whose secret the disk failed to read was told to rotate, which
 * removes every pairing to cure something that clears once the disk does.
 *
 * The identity code knows where it failed (opening a stored key, reading or creating the secret,
 * writing the row); the error's own code (errno or SQLite result code) decides whether the disk
 * is to blame, whatever the step.
 */

export type IdentityFailureCause =
  /** A stored key that the secret in force does not open: only a rotation makes a new one. */
  | 'key-unopenable'
  /** identity.secret holds nothing (empty, or only whitespace). */
  | 'secret-invalid'
  /** identity.secret cannot be read or created: its permissions, or something other than a file in its place. */
  | 'secret-unreadable'
  /** The disk refused a read or write: full, over quota, read-only or failing. Clears when the disk does. */
  | 'disk-refused'
  /** Anything else, such as hub.db held locked by another process. */
  | 'other';

/** Where the attempt failed, as the identity code knows it. */
export type IdentityFailureStage = 'open-key' | 'secret-invalid' | 'secret-unreadable' | 'other';

/** Errno codes of the disk refusing: no room (ENOSPC), no quota left (EDQUOT), read-only (EROFS), failing (EIO). */
const DISK_REFUSED_ERRNO: ReadonlySet<string> = new Set(['ENOSPC', 'EDQUOT', 'EROFS', 'EIO']);
/** SQLite's result codes for the same: the disk is full, an I/O error (all it says of some full disks), the file read-only. */
const DISK_REFUSED_SQLITE = /^SQLITE_(FULL|IOERR|READONLY)/;

/** The cause of a failure at `stage` whose error carried `code` (null when it carried none). */
export function identityFailureCause(stage: IdentityFailureStage, code: string | null): IdentityFailureCause {
  if (code !== null && (DISK_REFUSED_ERRNO.has(code) || DISK_REFUSED_SQLITE.test(code))) return 'disk-refused';
  return stage === 'open-key' ? 'key-unopenable' : stage;
}

/** How far down a chain of causes to look: a wrapped error is at most a couple of levels deep here. */
const MAX_CAUSE_DEPTH = 5;

/**
 * The errno or SQLite code an error carries, looking through its causes: a write hub.db refused
 * reaches the identity as HUB_ERR_STORE_UNAVAILABLE, with SQLite's error as its cause.
 */
export function failureCode(err: unknown): string | null {
  let current: unknown = err;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && (/^E[A-Z0-9]+$/.test(code) || code.startsWith('SQLITE_'))) return code;
    current = current.cause;
  }
  return null;
}
