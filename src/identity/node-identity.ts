/**
 * This Hub's pool identity: one node UUID and one Ed25519 key pair, kept in hub_pool_identity.
 *
 * Rules, and the incident or cost behind each:
 * - Minted on first use, never at boot. Key derivation costs tens of milliseconds of PBKDF2, and a
 *   Hub that never pools should pay nothing and mint nothing.
 * - load() never rejects. Whatever touches pooling first awaits it; a throw there would take that
 *   caller down on every Hub running the build, single-node ones included.
 * - Never re-minted silently. A reinstall that regenerates the secret leaves the sealed key
 *   unreadable; a fresh key would unpair the whole fleet to paper over a fixable environment
 *   problem. Instead the failure is reported (UUID and public key stay known, they are stored in
 *   the clear, so peers can still be verified), logged once, retried on a timer in case the secret
 *   comes back, and cleared only by an explicit rotate().
 *
 * Salt: a random 16-byte salt per key pair, stored in the same column as the sealed key:
 * `private_key_sealed = <salt base64url>.v1.<sealed pkcs8>`. This needs no schema change, and
 * unlike a salt derived from the UUID it differs across rotations. Tokens sealed with
 * sealToken() use the same derived key, so a rotation (which deletes every peer row anyway)
 * leaves earlier sealed tokens unreadable.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, randomUUID, sign as cryptoSign, type KeyObject } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { HubError } from '../errors.js';
import type { Db } from '../store/database.js';
import type { Background, BackgroundHandle } from '../util/background.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { keyFingerprint } from './fingerprint.js';
import { failureCode, identityFailureCause, type IdentityFailureCause, type IdentityFailureStage } from './identity-failure-cause.js';
import { deriveSealingKey, seal, unseal } from './sealing.js';
import { unsyncedWriteText, writeFileAtomic } from '../util/atomic-write.js';

export const IDENTITY_SECRET_FILE = 'identity.secret';
/** How often a failed load is tried again by itself. */
export const DEFAULT_IDENTITY_RETRY_MS = 30_000;
const SALT_BYTES = 16;

/** What status shows of the identity: a failed first mint has an error and neither UUID nor fingerprint. */
export interface IdentitySummary {
  nodeUuid: string | null;
  fingerprint: string | null;
  identityError: string | null;
  /** Why it cannot be used, for the fix (identity-fix.ts); null while it can. */
  identityCause: IdentityFailureCause | null;
}

export type IdentityState =
  | { ok: true; nodeUuid: string; publicKey: string; fingerprint: string; sign(data: Buffer): Buffer }
  | { ok: false; error: string; cause: IdentityFailureCause; nodeUuid: string | null; publicKey: string | null };

/** Why no key can be made right now, and the cause the fix is chosen by. */
export interface SecretProblem {
  reason: string;
  cause: IdentityFailureCause;
}

export interface NodeIdentityOptions {
  db: Db;
  dataDir: string;
  /** HUB_POOL_IDENTITY_SECRET; when null or empty the secret lives in <dataDir>/identity.secret. */
  envSecret: string | null;
  clock: Clock;
  logger: Logger;
  /** Owns the retry timer and the warm-up load. */
  background: Background;
  retryMs?: number;
}

interface IdentityRow {
  nodeUuid: string;
  publicKey: string;
  privateKeySealed: string;
}

/** A state plus the sealing key behind it, which only an unlocked identity has. */
interface Outcome {
  state: IdentityState;
  sealingKey: Buffer | null;
}

export class NodeIdentity {
  readonly #db: Db;
  readonly #dataDir: string;
  readonly #envSecret: string | null;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #retryMs: number;
  readonly #background: Background;
  #state: IdentityState | null = null;
  #sealingKey: Buffer | null = null;
  #firstLoad: Promise<IdentityState> | null = null;
  /** Serialises load, retry and rotate, so two of them never write or judge the row at once. */
  #lock: Promise<unknown> = Promise.resolve();
  #retryTimer: BackgroundHandle | null = null;
  #failureLogged = false;
  #closed = false;

  constructor(opts: NodeIdentityOptions) {
    this.#db = opts.db;
    this.#dataDir = opts.dataDir;
    this.#envSecret = opts.envSecret || null;
    this.#clock = opts.clock;
    this.#logger = opts.logger;
    this.#retryMs = opts.retryMs ?? DEFAULT_IDENTITY_RETRY_MS;
    this.#background = opts.background;
  }

  /**
   * The identity, minted on the first call when none is stored. Memoised; never rejects.
   *
   * `retryDiskRefusal` is for an action an operator is waiting on (a PIN, a pairing): when the
   * last attempt failed because the disk refused it, it is made again now rather than answered
   * from memory until the retry timer's next tick, up to DEFAULT_IDENTITY_RETRY_MS after the
   * operator freed the space. The attempt runs under the same lock as the timer's, load's and
   * rotate's, and reads the row before minting, so a retry racing another never makes a second
   * identity; one that finds the identity already made does nothing. Callers from outside (a
   * peer's request, anonymous on /pair/request) leave it off: they must not be able to make this
   * Hub derive a key and write the disk once per request.
   */
  async load(opts: { retryDiskRefusal?: boolean } = {}): Promise<IdentityState> {
    if (!this.#state) {
      this.#firstLoad ??= this.#exclusive(() => this.#attempt());
      return this.#firstLoad;
    }
    if (opts.retryDiskRefusal === true && !this.#state.ok && this.#state.cause === 'disk-refused') {
      await this.#retry();
      return this.#state;
    }
    return this.#state;
  }

  /**
   * The identity when one has been minted, without ever minting one: null on a Hub that has none.
   * For verifying a caller, which needs this Hub's UUID only when some peer could know it; an
   * anonymous request must not make a Hub that never pooled mint (spec, "Failure modes").
   */
  loadExisting(): Promise<IdentityState | null> {
    if (this.#state || this.#firstLoad) return this.load();
    return this.#readRow() === null ? Promise.resolve(null) : this.load();
  }

  /**
   * For status: never mints, never awaits. null until load() has run. A first mint that failed
   * has no UUID or key to show but still reports why (spec, "Failure modes": the reason is in
   * status); hiding it read as "not made yet" while every pairing was refused.
   */
  summary(): IdentitySummary | null {
    const s = this.#state;
    if (!s) return null;
    if (s.ok) return { nodeUuid: s.nodeUuid, fingerprint: s.fingerprint, identityError: null, identityCause: null };
    if (s.nodeUuid === null || s.publicKey === null) return { nodeUuid: null, fingerprint: null, identityError: s.error, identityCause: s.cause };
    return { nodeUuid: s.nodeUuid, fingerprint: safeFingerprint(s.publicKey), identityError: s.error, identityCause: s.cause };
  }

  /**
   * Why no key could be minted right now, or null when one could: the secret reads, or is absent
   * and can be created (which this does, as a mint would). Rotation asks first, because it unpairs
   * every peer before it mints, and a mint that then fails would leave the Hub with no pairings
   * and no key.
   */
  secretProblem(): Promise<SecretProblem | null> {
    return this.#exclusive(async () => {
      try {
        await this.#readSecret(true);
        return null;
      } catch (err) {
        if (err instanceof SecretUnusable) return { reason: err.describe(), cause: identityFailureCause(err.stage, failureCode(err)) };
        throw err;
      }
    });
  }

  /**
   * A new key pair under the current secret, keeping the UUID. This is also the recovery path for
   * an unreadable key, so it never reads the old private key. Rejects when the secret cannot be
   * read or created (secretProblem() says so beforehand) or the new key cannot be stored; the
   * previous state then stands.
   */
  rotate(): Promise<IdentityState> {
    return this.#exclusive(async () => {
      const existing = this.#readRow();
      const outcome = await this.#mint(existing?.nodeUuid ?? randomUUID(), true);
      this.#settle(outcome);
      return outcome.state;
    });
  }

  /**
   * Rejects with HUB_ERR_IDENTITY_UNAVAILABLE (503) while the key cannot be opened. Its message
   * names no path: an anonymous pairing request reaches this. The reason was logged once when the
   * load failed and stays in status, so a refusal here logs nothing more.
   */
  async sealToken(token: string): Promise<string> {
    const state = await this.load();
    if (!state.ok || !this.#sealingKey) {
      throw new HubError(
        'HUB_ERR_IDENTITY_UNAVAILABLE',
        "this Hub's pool identity key cannot be opened, so it cannot take part in pairing now; its operator sees why in cihub pool status",
        { cause: new Error(state.ok ? 'no sealing key' : state.error) },
      );
    }
    return seal(this.#sealingKey, Buffer.from(token, 'utf8'));
  }

  /** null when the identity is unreadable or the value was sealed under another key. */
  async unsealToken(sealed: string): Promise<string | null> {
    const state = await this.load();
    if (!state.ok || !this.#sealingKey) return null;
    try {
      return unseal(this.#sealingKey, sealed).toString('utf8');
    } catch {
      return null;
    }
  }

  /**
   * Loads the identity in the background when one was minted before, so status reports a key
   * that cannot be opened from the start. Never mints: a Hub that has never paired stays without
   * one. The unseal runs asynchronously, off the boot path.
   */
  warmIfPresent(): void {
    if (this.#readRow() !== null) this.#background.run('pool identity warm-up', () => this.load());
  }

  close(): void {
    this.#closed = true;
    this.#stopRetry();
  }

  /** Opens the stored identity, or mints one when the table is empty. Never throws. */
  async #attempt(): Promise<IdentityState> {
    let outcome: Outcome;
    try {
      const row = this.#readRow();
      outcome = row ? await this.#open(row) : await this.#mint(randomUUID(), false);
    } catch (err) {
      const stage: IdentityFailureStage = err instanceof SecretUnusable ? err.stage : 'other';
      const error = `pool identity could not be made: ${describeMintFailure(err)}`;
      outcome = { state: { ok: false, error, cause: identityFailureCause(stage, failureCode(err)), nodeUuid: null, publicKey: null }, sealingKey: null };
    }
    this.#settle(outcome);
    return outcome.state;
  }

  async #open(row: IdentityRow): Promise<Outcome> {
    let source = this.#envSecret ? 'HUB_POOL_IDENTITY_SECRET' : join(this.#dataDir, IDENTITY_SECRET_FILE);
    try {
      const { salt, sealed } = splitStored(row.privateKeySealed);
      const secret = await this.#readSecret(false);
      source = secret.source;
      const key = await deriveSealingKey(secret.value, salt);
      const privateKey = createPrivateKey({ key: unseal(key, sealed), format: 'der', type: 'pkcs8' });
      // A key that unseals but belongs to another public key would sign requests no peer accepts.
      if (rawPublicKey(createPublicKey(privateKey)) !== row.publicKey) throw new Error('the unsealed private key does not match the stored public key');
      return unlocked(row.nodeUuid, row.publicKey, privateKey, key);
    } catch (err) {
      const cause = identityFailureCause('open-key', failureCode(err));
      // The disk failing to read the secret says nothing about the key: "rotate" would remove every
      // pairing to cure what clears once the disk does.
      const error =
        cause === 'disk-refused'
          ? `pool identity private key cannot be opened: the secret from ${source} could not be read (${message(err)}). This Hub can verify peers but cannot sign until the disk answers`
          : `pool identity private key cannot be unsealed with the secret from ${source}: ${message(err)}. This Hub can verify peers but cannot sign; restore the secret, or rotate the identity and re-pair`;
      return { state: { ok: false, error, cause, nodeUuid: row.nodeUuid, publicKey: row.publicKey }, sealingKey: null };
    }
  }

  async #mint(nodeUuid: string, replace: boolean): Promise<Outcome> {
    const secret = await this.#readSecret(true);
    const salt = randomBytes(SALT_BYTES);
    const key = await deriveSealingKey(secret.value, salt);
    const pair = generateKeyPairSync('ed25519');
    const publicKey = rawPublicKey(pair.publicKey);
    const stored = `${salt.toString('base64url')}.${seal(key, pair.privateKey.export({ format: 'der', type: 'pkcs8' }))}`;
    const verb = replace ? 'INSERT OR REPLACE' : 'INSERT';
    this.#db
      .prepare(`${verb} INTO hub_pool_identity (id, node_uuid, public_key, private_key_sealed, created_at) VALUES ('self', ?, ?, ?, ?)`)
      .run(nodeUuid, publicKey, stored, new Date(this.#clock.nowMs()).toISOString());
    const outcome = unlocked(nodeUuid, publicKey, pair.privateKey, key);
    this.#logger.info({ nodeUuid, fingerprint: keyFingerprint(publicKey), rotated: replace }, replace ? 'pool identity key rotated' : 'pool identity minted');
    return outcome;
  }

  /**
   * The secret's text. A missing file is created only when minting; otherwise it is an error.
   * Every failure is a SecretUnusable naming the file. An empty or unreadable file is never
   * replaced: it may be the secret a stored key was sealed under, damaged in a way the operator
   * can still undo.
   */
  async #readSecret(create: boolean): Promise<{ value: string; source: string }> {
    if (this.#envSecret) return { value: this.#envSecret, source: 'HUB_POOL_IDENTITY_SECRET' };
    const path = join(this.#dataDir, IDENTITY_SECRET_FILE);
    let value: string;
    try {
      value = (await readFile(path, 'utf8')).trim();
    } catch (err) {
      if (!isErrno(err, 'ENOENT')) throw new SecretUnusable(path, message(err), 'secret-unreadable', err);
      if (!create) throw new SecretUnusable(path, 'the file is missing', 'secret-unreadable', err);
      return this.#createSecret(path);
    }
    if (!value) throw new SecretUnusable(path, 'the file is empty', 'secret-invalid', null);
    return { value, source: path };
  }

  async #createSecret(path: string): Promise<{ value: string; source: string }> {
    const value = randomBytes(32).toString('hex');
    let unsynced;
    try {
      await mkdir(this.#dataDir, { recursive: true, mode: 0o700 });
      // Exclusive: if another process created it in between, fail rather than overwrite its secret.
      unsynced = writeFileAtomic(path, `${value}\n`, { mode: 0o600, exclusive: true });
    } catch (err) {
      throw new SecretUnusable(path, `it cannot be created: ${message(err)}`, 'secret-unreadable', err);
    }
    // The secret is in place and the key will be sealed under it; only its directory entry is not yet durable.
    if (unsynced !== null) this.#logger.warn({ unsyncedWrite: unsynced }, unsyncedWriteText(unsynced));
    return { value, source: path };
  }

  #readRow(): IdentityRow | null {
    const row = this.#db
      .prepare("SELECT node_uuid AS nodeUuid, public_key AS publicKey, private_key_sealed AS privateKeySealed FROM hub_pool_identity WHERE id = 'self'")
      .get() as IdentityRow | undefined;
    return row ?? null;
  }

  #settle(outcome: Outcome): void {
    const s = outcome.state;
    // A retry that fails the same way keeps the existing object, so load() stays memoised.
    if (!sameFailure(this.#state, s)) this.#state = s;
    this.#sealingKey = outcome.sealingKey;
    if (s.ok) {
      if (this.#failureLogged) this.#logger.info({ nodeUuid: s.nodeUuid }, 'pool identity is readable again');
      this.#failureLogged = false;
      this.#stopRetry();
      return;
    }
    // Once per failure episode at error: a retry every 30 s would otherwise flood the log.
    if (!this.#failureLogged) this.#logger.error({ nodeUuid: s.nodeUuid }, s.error);
    else this.#logger.debug({ nodeUuid: s.nodeUuid }, s.error);
    this.#failureLogged = true;
    if (!this.#retryTimer && !this.#closed) this.#retryTimer = this.#background.every('pool identity retry', this.#retryMs, () => this.#retry());
  }

  async #retry(): Promise<void> {
    await this.#exclusive(async () => {
      if (this.#state?.ok || this.#closed) return;
      await this.#attempt();
    });
  }

  #stopRetry(): void {
    this.#retryTimer?.stop();
    this.#retryTimer = null;
  }

  #exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#lock.then(fn);
    this.#lock = run.catch(() => undefined);
    return run;
  }
}

/**
 * The sealing secret cannot be read or created; its message is the bare reason, for #open's
 * sentence, and its cause the file system's error, whose code says whether the disk refused.
 */
class SecretUnusable extends Error {
  constructor(
    readonly path: string,
    reason: string,
    readonly stage: 'secret-invalid' | 'secret-unreadable',
    cause: unknown,
  ) {
    super(reason, cause === null ? undefined : { cause });
  }

  describe(): string {
    return `the secret in ${this.path} cannot be used: ${this.message}`;
  }
}

function unlocked(nodeUuid: string, publicKey: string, privateKey: KeyObject, sealingKey: Buffer): Outcome {
  const state: IdentityState = {
    ok: true,
    nodeUuid,
    publicKey,
    fingerprint: keyFingerprint(publicKey),
    sign: (data: Buffer) => cryptoSign(null, data, privateKey),
  };
  return { state, sealingKey };
}

/** base64url of the raw 32 bytes: the JWK 'x' member is exactly that encoding. */
function rawPublicKey(key: KeyObject): string {
  const x = key.export({ format: 'jwk' }).x;
  if (typeof x !== 'string') throw new Error('Ed25519 public key has no raw form');
  return x;
}

function splitStored(stored: string): { salt: Buffer; sealed: string } {
  const dot = stored.indexOf('.');
  const salt = Buffer.from(dot < 0 ? '' : stored.slice(0, dot), 'base64url');
  if (salt.length !== SALT_BYTES) throw new Error('the stored private key has no valid salt');
  return { salt, sealed: stored.slice(dot + 1) };
}

function sameFailure(a: IdentityState | null, b: IdentityState): boolean {
  return a !== null && !a.ok && !b.ok && a.error === b.error && a.cause === b.cause && a.nodeUuid === b.nodeUuid && a.publicKey === b.publicKey;
}

/**
 * Why a first mint failed, for the state's error. hub.db's refusal reaches here as
 * HUB_ERR_STORE_UNAVAILABLE, whose own message ends "retry in a moment": the advice for a request,
 * not for an identity the Hub retries by itself, so only SQLite's code is kept.
 */
function describeMintFailure(err: unknown): string {
  if (err instanceof SecretUnusable) return err.describe();
  if (err instanceof HubError && err.code === 'HUB_ERR_STORE_UNAVAILABLE') return `hub.db in the data dir refused it (${failureCode(err) ?? 'no code'})`;
  return message(err);
}

function safeFingerprint(publicKey: string): string {
  try {
    return keyFingerprint(publicKey);
  } catch {
    return 'invalid public key';
  }
}

function isErrno(err: unknown, code: string): boolean {
  return err instanceof Error && (err as NodeJS.ErrnoException).code === code;
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
