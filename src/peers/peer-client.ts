/**
 * Calls a peer's pool routes: dialled at https://<name> (or the development map), signed when
 * the row allows it, bearer otherwise. Answers are data; a transport failure is an answer too,
 * never a throw, so callers classify every outcome in one place.
 */
import { randomBytes } from 'node:crypto';
import { request } from '../util/undici-lean.js';
import type { Dispatcher } from 'undici';
import type { PoolSettings } from '../config/settings-schema.js';
import { describeTransportError } from '../engines/probe-fetch.js';
import type { NodeIdentity } from '../identity/node-identity.js';
import { HEADER_PEER, signRequest } from '../peer-auth/signed-headers.js';
import type { PeerRow } from '../store/peers.js';
import { mappedOrigin, peerOrigin } from '../tailnet/peer-origins.js';
import { POOL_ADDRESS_REFUSED } from '../tailnet/pinned-dial.js';
import { holdsMoreStructureThan, parseJsonOrUndefined, readBounded, UpstreamReadError } from '../util/bounded-read.js';
import type { Clock } from '../util/clock.js';
import { noAnswerWithin } from '../util/call-failure.js';
import { withinDeadline } from '../util/within-deadline.js';
import { outboundAuthMode, type AuthMode } from './auth-mode.js';

export type PeerAnswer =
  | {
      readonly ok: true;
      readonly status: number;
      readonly headers: Record<string, string | string[] | undefined>;
      readonly json: unknown;
      readonly auth: AuthMode;
    }
  | {
      readonly ok: false;
      readonly error: string;
      readonly auth: AuthMode;
      /** Set when nothing was sent, because this Hub holds no credential it can present; null when the call went out. */
      readonly unsent: CredentialGap | null;
    };

/**
 * Why this Hub could not authenticate a call, so sent none. Each has its own fix, and none clears
 * by waiting for the peer (spec, "A peer whose identity changed": unreachable is for a peer that
 * did not answer):
 * - own_key_unusable: its identity key, or the bearer token sealed under it, cannot be opened;
 * - signed_required: poolRequireSignedPeers is on and the pairing has no pinned key yet;
 * - no_token: a bearer pairing with no token stored and no key pinned;
 * - no_name: this Hub has no tailnet name to present.
 */
export type CredentialGap = 'own_key_unusable' | 'signed_required' | 'no_token' | 'no_name';

export interface PeerClientDeps {
  readonly identity: NodeIdentity;
  /** This Hub's MagicDNS name, or null while it has none. */
  readonly selfName: () => Promise<string | null>;
  readonly origins: ReadonlyMap<string, string>;
  readonly dispatcher: Dispatcher;
  /**
   * For peers dialled by name: refuses any connection whose resolved address is not private
   * (tailnet/pinned-dial.ts, issue 9 #19). The development map's loopback origins use `dispatcher`.
   */
  readonly nameDispatcher: Dispatcher;
  readonly settings: () => PoolSettings;
  readonly clock: Clock;
}

/**
 * Largest answer read from a peer's pairing and housekeeping routes (request, confirm, upgrade,
 * reject, unpair): 64 KiB. Each is a few hundred bytes of identity and tokens.
 */
export const PEER_REPLY_MAX_BYTES = 64 * 1024;
/**
 * Largest capabilities document read from a peer: 16 MiB. The reader keeps at most 16 engines
 * of 2,000 names of 256 characters (8 MiB) plus model details; anything bigger is not a
 * document this Hub would keep, and reading it whole once took a Hub past 4 GB (issue 9).
 */
export const PEER_CAPABILITIES_MAX_BYTES = 16 * 1024 * 1024;
/**
 * Most JSON structure (opening brackets, colons, commas) read from a peer's capabilities
 * document: 250,000. The reader keeps at most 4,000 models and 2,000 model details, some tens of
 * thousands of members at most. An object of 125,000 keys, the worst this lets through, parses
 * in about 50 ms where the byte limit alone let a peer hold the event loop for seconds each poll.
 */
export const PEER_CAPABILITIES_MAX_STRUCTURE = 250_000;

export interface CallOptions {
  /** The whole call: the connection, the headers and the body. */
  readonly timeoutMs: number;
  /** Largest body read (PEER_REPLY_MAX_BYTES when not given); past it the call fails. */
  readonly maxBytes?: number;
  /** Most JSON structure bytes the body may hold (holdsMoreStructureThan), checked before it is parsed; past it the call fails. Unbounded when not given. */
  readonly maxStructure?: number;
  /** 'row' authenticates as the row allows; 'none' sends an unauthenticated request (/pair/request only). */
  readonly auth?: 'row' | 'none';
}

export class PeerClient {
  readonly #deps: PeerClientDeps;
  constructor(deps: PeerClientDeps) {
    this.#deps = deps;
  }

  async call(peer: PeerRow | { readonly nodeFqdn: string }, method: 'GET' | 'POST', path: string, body: unknown, opts: CallOptions): Promise<PeerAnswer> {
    const payload = body === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(body));
    const headers: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' };
    const self = await this.#deps.selfName();
    let auth: AuthMode = 'none';
    if (opts.auth !== 'none' && 'id' in peer) {
      auth = outboundAuthMode(peer, this.#deps.settings().poolRequireSignedPeers);
      const added = await this.#authHeaders(peer, auth, self, method, path, payload);
      if ('gap' in added) return { ok: false, error: added.error, auth, unsent: added.gap };
      Object.assign(headers, added.headers);
    } else if (self !== null) {
      headers[HEADER_PEER] = self;
    }
    try {
      // The deadline covers the connection as well (util/within-deadline.ts): a switched-off
      // tailnet machine drops SYNs, and the abort alone left a discovery probe or a leaving
      // notice waiting out undici's 10 s connect default instead of its own budget.
      const res = await withinDeadline(
        request(`${peerOrigin(peer.nodeFqdn, this.#deps.origins)}${path}`, {
          method,
          headers,
          body: body === undefined ? undefined : payload,
          dispatcher: mappedOrigin(peer.nodeFqdn, this.#deps.origins) === null ? this.#deps.nameDispatcher : this.#deps.dispatcher,
          headersTimeout: opts.timeoutMs,
          bodyTimeout: opts.timeoutMs,
          signal: AbortSignal.timeout(opts.timeoutMs),
        }),
        opts.timeoutMs,
      );
      if (res === null) return { ok: false, error: noAnswerWithin(opts.timeoutMs), auth, unsent: null };
      const bytes = await readBounded(res.body, { maxBytes: opts.maxBytes ?? PEER_REPLY_MAX_BYTES, timeoutMs: opts.timeoutMs }, res.headers['content-length']);
      if (opts.maxStructure !== undefined && holdsMoreStructureThan(bytes, opts.maxStructure))
        throw new UpstreamReadError('too-large', `the answer holds more than ${opts.maxStructure} JSON objects, arrays and members`);
      const json = bytes.length === 0 ? null : (parseJsonOrUndefined(bytes) ?? null);
      return { ok: true, status: res.statusCode, headers: res.headers, json, auth };
    } catch (err) {
      const cause = (err as { cause?: { code?: unknown; message?: string } }).cause;
      if ((err as { code?: unknown }).code === POOL_ADDRESS_REFUSED || cause?.code === POOL_ADDRESS_REFUSED) {
        return {
          ok: false,
          error: `not dialled: ${(cause?.code === POOL_ADDRESS_REFUSED ? cause.message : (err as Error).message) ?? ''}`,
          auth,
          unsent: null,
        };
      }
      return { ok: false, error: describeTransportError(err, opts.timeoutMs), auth, unsent: null };
    }
  }

  /** Headers that authenticate one request to this peer as the row allows, or why there are none. */
  async authFor(peer: PeerRow, method: string, path: string, body: Buffer): Promise<Record<string, string> | string> {
    const auth = outboundAuthMode(peer, this.#deps.settings().poolRequireSignedPeers);
    const added = await this.#authHeaders(peer, auth, await this.#deps.selfName(), method, path, body);
    return 'gap' in added ? added.error : added.headers;
  }

  async #authHeaders(
    peer: PeerRow,
    auth: AuthMode,
    self: string | null,
    method: string,
    path: string,
    payload: Buffer,
  ): Promise<{ headers: Record<string, string> } | { gap: CredentialGap; error: string }> {
    if (auth === 'none')
      return this.#deps.settings().poolRequireSignedPeers
        ? { gap: 'signed_required', error: 'poolRequireSignedPeers is on and this peer has no pinned key' }
        : { gap: 'no_token', error: 'No outbound pairing token stored' };
    if (self === null) return { gap: 'no_name', error: 'this Hub has no tailnet name to present' };
    if (auth === 'bearer') {
      const token = await this.#deps.identity.unsealToken(peer.presentTokenSealed!);
      if (token === null) return { gap: 'own_key_unusable', error: 'No outbound pairing token stored (the sealed token cannot be opened)' };
      return { headers: { [HEADER_PEER]: self, authorization: `Bearer ${token}` } };
    }
    const identity = await this.#deps.identity.load();
    if (!identity.ok) return { gap: 'own_key_unusable', error: `this Hub cannot sign: ${identity.error}` };
    const headers = signRequest({
      sign: identity.sign,
      senderUuid: identity.nodeUuid,
      senderFqdn: self,
      recipientUuid: peer.peerNodeUuid!,
      method,
      path,
      body: payload,
      nowMs: this.#deps.clock.nowMs(),
      nonce: randomBytes(16).toString('base64url'),
    });
    return { headers };
  }
}
