/**
 * hub_pool_peer: this Hub's half of each pairing. A row is keyed by the peer's MagicDNS name
 * (the transport address) and, once pinned, by the peer's node UUID (the identity). A UUID is
 * only ever written together with the public key that makes it verifiable.
 */
import { randomUUID } from 'node:crypto';
import type { Statement } from 'better-sqlite3';
import type { Db } from './database.js';

export type PeerDirection = 'outbound' | 'inbound';
export type PeerStatus = 'pending' | 'connected' | 'unreachable';

export interface PeerRow {
  readonly id: string;
  readonly nodeFqdn: string;
  /** Who asked: 'outbound' = this Hub sent the request, 'inbound' = the peer did. */
  readonly direction: PeerDirection;
  readonly status: PeerStatus;
  /** Per-peer switch: off keeps the pairing and the poll but exchanges no work either way. */
  readonly enabled: boolean;
  /** The peer's pinned identity; both null until pinned. */
  readonly peerNodeUuid: string | null;
  readonly peerPublicKey: string | null;
  /** The request arrived with a valid PIN (so its key came from a PIN-gated exchange). */
  readonly pinVerified: boolean;
  /** SHA-256 of the token this Hub issued the peer; null once the peer signs. */
  readonly issuedTokenHash: string | null;
  /** The token the peer issued this Hub, sealed; null once the peer has been seen signing. */
  readonly presentTokenSealed: string | null;
  /** When the peer was first seen signing; null = never. */
  readonly signedSeenAt: string | null;
  /** Until when this Hub keeps presenting its bearer token although it holds the peer's key. */
  readonly bearerGraceUntil: string | null;
  readonly createdAt: string;
  /** A pending request's expiry; null once connected. */
  readonly expiresAt: string | null;
  readonly lastSeenAt: string | null;
  readonly consecutiveFailures: number;
  /**
   * When this Hub approved the peer's request but the confirmation did not reach it (half
   * paired); null otherwise. Cleared by the first good poll, which shows the peer holds the
   * pairing after all.
   */
  readonly confirmFailedAt: string | null;
  /**
   * On a request this Hub sent: when the peer's own request to this Hub arrived and was set
   * aside because this one waits (the two crossed); null otherwise.
   */
  readonly crossedAt: string | null;
}

export type NewPeer = Omit<
  PeerRow,
  'id' | 'enabled' | 'signedSeenAt' | 'bearerGraceUntil' | 'lastSeenAt' | 'consecutiveFailures' | 'confirmFailedAt' | 'crossedAt'
> &
  Partial<Pick<PeerRow, 'bearerGraceUntil'>>;
export type PeerPatch = Partial<Omit<PeerRow, 'id' | 'createdAt'>>;

const COLUMNS: Readonly<Record<keyof PeerRow, string>> = {
  id: 'id',
  nodeFqdn: 'node_fqdn',
  direction: 'direction',
  status: 'status',
  enabled: 'enabled',
  peerNodeUuid: 'peer_node_uuid',
  peerPublicKey: 'peer_public_key',
  pinVerified: 'pin_verified',
  issuedTokenHash: 'issued_token_hash',
  presentTokenSealed: 'present_token_sealed',
  signedSeenAt: 'signed_seen_at',
  bearerGraceUntil: 'bearer_grace_until',
  createdAt: 'created_at',
  expiresAt: 'expires_at',
  lastSeenAt: 'last_seen_at',
  consecutiveFailures: 'consecutive_failures',
  confirmFailedAt: 'confirm_failed_at',
  crossedAt: 'crossed_at',
};

const SELECT = `SELECT ${Object.entries(COLUMNS)
  .map(([k, c]) => `${c} AS ${k}`)
  .join(', ')} FROM hub_pool_peer`;

type RawRow = Omit<PeerRow, 'enabled' | 'pinVerified'> & { enabled: number; pinVerified: number };

function fromRaw(raw: RawRow | undefined): PeerRow | null {
  return raw ? { ...raw, enabled: raw.enabled === 1, pinVerified: raw.pinVerified === 1 } : null;
}

function toDb(value: unknown): unknown {
  return typeof value === 'boolean' ? (value ? 1 : 0) : value;
}

export class PeerStore {
  readonly #db: Db;
  /**
   * Every row, as last read. Placement reads the peer list on every request; only this process
   * writes the table, so the list is read once and dropped on each write rather than queried
   * per request.
   */
  #rows: readonly PeerRow[] | null = null;
  /**
   * Statements by their SQL, prepared once. Preparing one parses its SQL, and a forward to a peer
   * prepared one to look up the peer it signs for: about a tenth of the Hub's CPU per forwarded
   * request at 50 peers (a profile of bench/pool-scale, 2026-12-05).
   */
  readonly #statements = new Map<string, Statement<unknown[]>>();

  constructor(db: Db) {
    this.#db = db;
  }

  #prepare(sql: string): Statement<unknown[]> {
    let statement = this.#statements.get(sql);
    if (statement === undefined) this.#statements.set(sql, (statement = this.#db.prepare(sql)));
    return statement;
  }

  list(): readonly PeerRow[] {
    this.#rows ??= Object.freeze((this.#prepare(`${SELECT} ORDER BY created_at, id`).all() as RawRow[]).map((r) => Object.freeze(fromRaw(r)!)));
    return this.#rows;
  }

  /** The row with this id, from the list as last read (see #rows). */
  get(id: string): PeerRow | null {
    return this.list().find((r) => r.id === id) ?? null;
  }

  byFqdn(nodeFqdn: string): PeerRow | null {
    return this.list().find((r) => r.nodeFqdn === nodeFqdn) ?? null;
  }

  byUuid(nodeUuid: string): PeerRow | null {
    return this.list().find((r) => r.peerNodeUuid === nodeUuid) ?? null;
  }

  insert(row: NewPeer): PeerRow {
    this.#rows = null;
    const full: PeerRow = {
      id: randomUUID(),
      enabled: true,
      signedSeenAt: null,
      bearerGraceUntil: null,
      lastSeenAt: null,
      consecutiveFailures: 0,
      confirmFailedAt: null,
      crossedAt: null,
      ...row,
    };
    const keys = Object.keys(COLUMNS) as (keyof PeerRow)[];
    this.#prepare(`INSERT INTO hub_pool_peer (${keys.map((k) => COLUMNS[k]).join(', ')}) VALUES (${keys.map(() => '?').join(', ')})`).run(
      ...keys.map((k) => toDb(full[k])),
    );
    return full;
  }

  /** Inserts `row` in place of the row `replacedId`, in one transaction: both happen or neither. */
  replace(replacedId: string, row: NewPeer): PeerRow {
    return this.#db.transaction(() => {
      this.delete(replacedId);
      return this.insert(row);
    })();
  }

  update(id: string, patch: PeerPatch): PeerRow | null {
    const keys = (Object.keys(patch) as (keyof PeerPatch)[]).filter((k) => patch[k] !== undefined);
    if (keys.length > 0) {
      this.#prepare(`UPDATE hub_pool_peer SET ${keys.map((k) => `${COLUMNS[k]} = ?`).join(', ')} WHERE id = ?`).run(...keys.map((k) => toDb(patch[k])), id);
    }
    const row = fromRaw(this.#prepare(`${SELECT} WHERE id = ?`).get(id) as RawRow | undefined);
    // The cached list gets the one row read back, not dropped: every good health poll writes
    // its peer's lastSeenAt, so dropping it re-read the whole table on the next request after
    // each poll (issue 13 item 3). An update changes neither created_at nor id, so order holds.
    if (this.#rows !== null) this.#rows = row === null ? null : Object.freeze(this.#rows.map((r) => (r.id === id ? Object.freeze({ ...row }) : r)));
    return row;
  }

  delete(id: string): boolean {
    this.#rows = null;
    return this.#prepare('DELETE FROM hub_pool_peer WHERE id = ?').run(id).changes > 0;
  }

  deleteAll(): number {
    this.#rows = null;
    return this.#prepare('DELETE FROM hub_pool_peer').run().changes;
  }

  countPendingInbound(): number {
    return (this.#prepare("SELECT COUNT(*) AS n FROM hub_pool_peer WHERE status = 'pending' AND direction = 'inbound'").get() as { n: number }).n;
  }

  /** Deletes pending requests whose expiry has passed; returns the names dropped. */
  deleteExpiredPending(nowIso: string): string[] {
    const rows = this.#prepare("SELECT node_fqdn AS name FROM hub_pool_peer WHERE status = 'pending' AND expires_at IS NOT NULL AND expires_at <= ?").all(
      nowIso,
    ) as { name: string }[];
    // Pairing requests sweep before they read the rows: the cached list is dropped only when something went.
    if (rows.length === 0) return [];
    this.#rows = null;
    this.#prepare("DELETE FROM hub_pool_peer WHERE status = 'pending' AND expires_at IS NOT NULL AND expires_at <= ?").run(nowIso);
    return rows.map((r) => r.name);
  }
}
