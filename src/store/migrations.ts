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
];
