/**
 * Versioned schema migrations, applied in order inside one transaction each. Append only:
 * a shipped migration is never edited, because Hubs in the field already ran it.
 */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'api keys',
    sql: `
      CREATE TABLE api_key (
        id          TEXT PRIMARY KEY,
        name        TEXT NOT NULL,
        scope       TEXT NOT NULL CHECK (scope IN ('inference', 'qa:read')),
        key_hash    TEXT NOT NULL UNIQUE,
        created_at  TEXT NOT NULL,
        revoked_at  TEXT
      );
    `,
  },
  {
    version: 2,
    name: 'pool identity and peers',
    sql: `
      CREATE TABLE hub_pool_identity (
        id                  TEXT PRIMARY KEY CHECK (id = 'self'),
        node_uuid           TEXT NOT NULL,
        public_key          TEXT NOT NULL,
        private_key_sealed  TEXT NOT NULL,
        created_at          TEXT NOT NULL
      );
      CREATE TABLE hub_pool_peer (
        id                     TEXT PRIMARY KEY,
        node_fqdn              TEXT NOT NULL UNIQUE,
        direction              TEXT NOT NULL CHECK (direction IN ('outbound', 'inbound')),
        status                 TEXT NOT NULL CHECK (status IN ('pending', 'connected', 'unreachable')),
        enabled                INTEGER NOT NULL DEFAULT 1,
        peer_node_uuid         TEXT,
        peer_public_key        TEXT,
        pin_verified           INTEGER NOT NULL DEFAULT 0,
        issued_token_hash      TEXT,
        present_token_sealed   TEXT,
        signed_seen_at         TEXT,
        bearer_grace_until     TEXT,
        created_at             TEXT NOT NULL,
        expires_at             TEXT,
        last_seen_at           TEXT,
        consecutive_failures   INTEGER NOT NULL DEFAULT 0,
        CHECK ((peer_node_uuid IS NULL) = (peer_public_key IS NULL))
      );
      CREATE UNIQUE INDEX hub_pool_peer_uuid ON hub_pool_peer (peer_node_uuid) WHERE peer_node_uuid IS NOT NULL;
    `,
  },
  {
    version: 3,
    name: 'peer nonces survive a restart',
    sql: `
      CREATE TABLE peer_nonce (
        key         TEXT PRIMARY KEY,
        expires_at  INTEGER NOT NULL
      );
      CREATE INDEX peer_nonce_expiry ON peer_nonce (expires_at);
    `,
  },
  {
    version: 4,
    name: 'pairing states that need both operators (half paired, crossed requests)',
    sql: `
      ALTER TABLE hub_pool_peer ADD COLUMN confirm_failed_at TEXT;
      ALTER TABLE hub_pool_peer ADD COLUMN crossed_at TEXT;
    `,
  },
];
