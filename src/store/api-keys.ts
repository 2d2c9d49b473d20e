/**
 * API keys for callers that are not the operator: 'inference' keys admit an app or editor
 * to the proxy from outside the machine; 'qa:read' keys read pool status, the routing log and /metrics.
 * Only a SHA-256 of each key is stored (keys are 192 random bits, so a fast hash is enough);
 * the key itself is shown once, at creation.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Clock } from '../util/clock.js';
import type { Db } from './database.js';

export type ApiKeyScope = 'inference' | 'qa:read';
export const API_KEY_SCOPES: readonly ApiKeyScope[] = ['inference', 'qa:read'];

export interface ApiKeyRecord {
  readonly id: string;
  readonly name: string;
  readonly scope: ApiKeyScope;
  readonly createdAt: string;
  /** null while the key is live. */
  readonly revokedAt: string | null;
}

const KEY_PREFIX: Readonly<Record<ApiKeyScope, string>> = { inference: 'cihub_inf_', 'qa:read': 'cihub_qa_' };
export const MAX_KEY_NAME_LENGTH = 64;

export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export class ApiKeyStore {
  readonly #db: Db;
  readonly #clock: Clock;
  readonly #byHash;

  constructor(db: Db, clock: Clock) {
    this.#db = db;
    this.#clock = clock;
    this.#byHash = db.prepare(
      'SELECT id, name, scope, created_at AS createdAt, revoked_at AS revokedAt FROM api_key WHERE key_hash = ? AND revoked_at IS NULL',
    );
  }

  /** Mints a key; the returned secret is never stored or shown again. */
  create(name: string, scope: ApiKeyScope): { record: ApiKeyRecord; key: string } {
    const key = `${KEY_PREFIX[scope]}${randomBytes(24).toString('base64url')}`;
    const record: ApiKeyRecord = { id: randomBytes(6).toString('hex'), name, scope, createdAt: new Date(this.#clock.nowMs()).toISOString(), revokedAt: null };
    this.#db
      .prepare('INSERT INTO api_key (id, name, scope, key_hash, created_at) VALUES (?, ?, ?, ?, ?)')
      .run(record.id, name, scope, hashKey(key), record.createdAt);
    return { record, key };
  }

  list(): ApiKeyRecord[] {
    return this.#db
      .prepare('SELECT id, name, scope, created_at AS createdAt, revoked_at AS revokedAt FROM api_key ORDER BY created_at, id')
      .all() as ApiKeyRecord[];
  }

  /** Revokes by id; false when no live key has that id. */
  revoke(id: string): boolean {
    const res = this.#db.prepare('UPDATE api_key SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(new Date(this.#clock.nowMs()).toISOString(), id);
    return res.changes > 0;
  }

  /** The live key a presented secret belongs to, or null. */
  lookup(key: string): ApiKeyRecord | null {
    return (this.#byHash.get(hashKey(key)) as ApiKeyRecord | undefined) ?? null;
  }
}
