/**
 * Probing and pairing by address (spec: "Finding a peer by address"), for two Hubs on one LAN
 * with no directory. The probe asks /identify at the address and learns only that a Hub is
 * there and its pool protocol. The pairing sends a PIN-carrying request there; only the answer
 * to a valid PIN names the Hub, and the row is keyed on that name. The address is not stored:
 * from then on the peer is dialled at https://<name> like any other.
 *
 * Every dial goes through the address check (tailnet/private-address.ts) and is pinned to the
 * addresses that check returned; the pairing re-runs the check just before it sends, because
 * that call carries this Hub's token and key out (issue 9, #19).
 */
import { notText } from '../util/echo.js';
import { poolSwitchedOff, type DisabledBy } from '../config/kill-switch.js';
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import type { Logger } from 'pino';
import { request } from '../util/undici-lean.js';
import type { Dispatcher } from 'undici';
import { z } from 'zod';
import { HubError, type ErrorCode } from '../errors.js';
import { identityUnavailable } from '../identity/identity-fix.js';
import type { NodeIdentity } from '../identity/node-identity.js';
import { signRequest } from '../peer-auth/signed-headers.js';
import type { PeerRow, PeerStore } from '../store/peers.js';
import { authority, DEFAULT_HUB_PORTS, parseAddressTarget, type AddressTarget } from '../tailnet/address-target.js';
import { belongsToTailnet, normalizePeerName } from '../tailnet/peer-name.js';
import { mappedAddressOrigin } from '../tailnet/peer-origins.js';
import { pinnedAgent } from '../tailnet/pinned-dial.js';
import { checkPoolTarget, type Resolver } from '../tailnet/private-address.js';
import type { TailnetSelf } from '../tailnet/tailnet-self.js';
import { parseJsonOrUndefined, readBounded } from '../util/bounded-read.js';
import type { Clock } from '../util/clock.js';
import { describeCallFailure } from '../util/call-failure.js';
import { readIdentityClaim } from './identity-claim.js';
import { identityRotating, PAIRING_CALL_TIMEOUT_MS, PAIRING_REQUEST_TTL_MS } from './pairing-service.js';
import { declinedBecause, peerRefusalReason } from './peer-refusal-reason.js';

/** A Hub on the LAN answers /identify within milliseconds; 3 s per port keeps a two-port probe under 10 s. */
export const ADDRESS_PROBE_TIMEOUT_MS = 3_000;
/** /identify answers two fields; a pairing answer four. Anything past 16 KiB is not a Hub. */
const ANSWER_MAX_BYTES = 16 * 1024;
/** The first pool protocol whose /pair/request answers a valid PIN with the Hub's name. */
export const ADDRESS_PAIRING_MIN_PROTOCOL = 2;

export const IDENTIFY = z.object({ isCiHub: z.literal(true), poolProtocol: z.number().int().min(1).max(10_000).optional() });

export interface ProbeResult {
  readonly address: string;
  /** The port that answered as a Hub. */
  readonly port: number;
  /** 1 when /identify carried no version (the first protocol). */
  readonly poolProtocol: number;
  /** Whether pairing by address can work: the Hub names itself in the answer to a PIN. */
  readonly pairable: boolean;
}

export interface AddressPairingDeps {
  readonly store: PeerStore;
  readonly identity: NodeIdentity;
  readonly self: () => Promise<TailnetSelf>;
  /** Which master switch holds Hub Pool off; null while it is on. */
  readonly poolOff: () => DisabledBy;
  readonly resolve: Resolver;
  /** HUB_POOL_PEER_ORIGINS entries keyed by address (development and tests only). */
  readonly addressOrigins: ReadonlyMap<string, string>;
  /** For the development map's loopback origins. */
  readonly dispatcher: Dispatcher;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly onSent?: (peer: PeerRow) => void;
  /** True while this Hub rotates its identity key (PairingService.rotating): no pairing may start or land then. */
  readonly rotating?: () => boolean;
}

interface Dial {
  readonly origin: string;
  readonly dispatcher: Dispatcher;
  close(): Promise<void>;
}

export class AddressPairing {
  readonly #d: AddressPairingDeps;
  constructor(deps: AddressPairingDeps) {
    this.#d = deps;
  }

  /** Is there a Hub at this address, and on which protocol? Refuses any address it may not dial. */
  async probe(raw: unknown): Promise<ProbeResult> {
    const target = this.#target(raw);
    const tried: string[] = [];
    for (const port of target.port === null ? DEFAULT_HUB_PORTS : [target.port]) {
      const dial = await this.#dial(target.host, port);
      try {
        const res = await request(`${dial.origin}/api/inference/pool/identify`, {
          method: 'GET',
          dispatcher: dial.dispatcher,
          headersTimeout: ADDRESS_PROBE_TIMEOUT_MS,
          bodyTimeout: ADDRESS_PROBE_TIMEOUT_MS,
          signal: AbortSignal.timeout(ADDRESS_PROBE_TIMEOUT_MS),
        });
        const json = parseJsonOrUndefined(
          await readBounded(res.body, { maxBytes: ANSWER_MAX_BYTES, timeoutMs: ADDRESS_PROBE_TIMEOUT_MS }, res.headers['content-length']),
        );
        const identify = res.statusCode === 200 ? IDENTIFY.safeParse(json) : null;
        if (identify?.success) {
          const poolProtocol = identify.data.poolProtocol ?? 1;
          return { address: target.host, port, poolProtocol, pairable: poolProtocol >= ADDRESS_PAIRING_MIN_PROTOCOL };
        }
        tried.push(`${port}: ${res.statusCode !== 200 ? `HTTP ${res.statusCode}` : 'not a Hub'}`);
      } catch (err) {
        tried.push(`${port}: ${describeCallFailure(err, ADDRESS_PROBE_TIMEOUT_MS)}`);
      } finally {
        await dial.close();
      }
    }
    // A Hub listens on loopback alone by default (docs/operator-guide.md), so a target left at its
    // defaults is never reachable here. HUB_HOST takes one address, and Tailscale Serve reaches the
    // Hub at 127.0.0.1 only: a wildcard serves both, the target's own address would cut Serve off.
    // 0.0.0.0 takes IPv4 alone, so an IPv6 target needs ::, which Node binds dual-stack.
    const wildcard = isIP(target.host) === 6 ? '::' : '0.0.0.0';
    throw new HubError(
      'HUB_ERR_NO_HUB_AT_ADDRESS',
      `no Hub answered at ${target.host} (${tried.join('; ')}); a Hub listens on 127.0.0.1 only unless its HUB_HOST says otherwise, so for the pairing restart the other Hub with HUB_HOST=${wildcard}, which this machine can reach and which keeps 127.0.0.1 for Tailscale Serve (HUB_HOST=${target.host} alone would leave Serve unable to reach it); if it publishes another port, give it as ${authority(target.host, 5002).replace(/5002$/, '<port>')}`,
    );
  }

  /** Sends a PIN-carrying pairing request to the Hub at this address and keys the row on the name it answers with. */
  async pair(raw: unknown, pin: unknown): Promise<{ peer: PeerRow; pinVerified: true }> {
    if (typeof pin !== 'string' || !/^\d{6}$/.test(pin))
      throw new HubError(
        'HUB_ERR_BAD_REQUEST',
        'pairing by address needs the six-digit PIN minted on the other Hub: only its answer to a valid PIN says its name',
      );
    const off = this.#d.poolOff();
    if (off !== null) throw poolSwitchedOff(off, 'turn it on before pairing');
    if (this.#d.rotating?.()) throw identityRotating();
    const me = await this.#d.identity.load({ retryDiskRefusal: true });
    if (!me.ok) throw identityUnavailable(me);
    const self = await this.#d.self();
    if (self.nodeFqdn === null)
      throw new HubError('HUB_ERR_NO_TAILNET_NAME', 'this Hub has no tailnet name (connect Tailscale with MagicDNS, or set HUB_NODE_FQDN)');
    const found = await this.probe(raw);
    if (!found.pairable) {
      throw new HubError(
        'HUB_ERR_PEER_PROTOCOL_TOO_OLD',
        `the Hub at ${found.address} speaks pool protocol ${found.poolProtocol}, which ignores a PIN and never says its name; pair with it by its MagicDNS name instead`,
      );
    }
    const token = randomBytes(32).toString('base64url');
    // The check again, right before the call that carries the token out, pinned to what it returns.
    const dial = await this.#dial(found.address, found.port);
    let answer: { status: number; json: unknown };
    try {
      const res = await request(`${dial.origin}/api/inference/pool/pair/request`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ fromNodeFqdn: self.nodeFqdn, token, pin, nodeUuid: me.nodeUuid, publicKey: me.publicKey }),
        dispatcher: dial.dispatcher,
        headersTimeout: PAIRING_CALL_TIMEOUT_MS,
        bodyTimeout: PAIRING_CALL_TIMEOUT_MS,
        signal: AbortSignal.timeout(PAIRING_CALL_TIMEOUT_MS),
      });
      const json = parseJsonOrUndefined(
        await readBounded(res.body, { maxBytes: ANSWER_MAX_BYTES, timeoutMs: PAIRING_CALL_TIMEOUT_MS }, res.headers['content-length']),
      );
      answer = { status: res.statusCode, json: json ?? null };
    } catch (err) {
      throw new HubError(
        'HUB_ERR_PEER_UNREACHABLE',
        `could not reach the Hub at ${authority(found.address, found.port)} (${describeCallFailure(err, PAIRING_CALL_TIMEOUT_MS)})`,
      );
    } finally {
      await dial.close();
    }
    if (answer.status !== 200) {
      const said = (answer.json as { error?: { message?: unknown } } | null)?.error?.message;
      const at = authority(found.address, found.port);
      if (answer.status === 401) {
        this.#d.logger.warn({ address: at, status: answer.status }, `Peer refused the pairing PIN: the Hub at ${at} refused the pairing PIN`);
        throw new HubError(
          'HUB_ERR_PEER_REFUSED_PIN',
          `the Hub at ${found.address} refused the pairing PIN (wrong, expired, already used, replaced, or lost when that Hub restarted); mint a fresh one there with cihub pool pairing-pin`,
        );
      }
      // Both spellings the docs tell operators to search for, as a refusal by name logs them (pairing-service.ts).
      this.#d.logger.warn(
        { address: at, status: answer.status, reason: peerRefusalReason(said) },
        `Peer declined pairing request (${answer.status}): ${declinedBecause(`the Hub at ${at}`, answer.status, said)}`,
      );
      throw new HubError('HUB_ERR_PEER_REFUSED', declinedBecause(`the Hub at ${found.address}`, answer.status, said));
    }
    const claim = readIdentityClaim(answer.json);
    const named = (answer.json as { nodeFqdn?: unknown } | null)?.nodeFqdn;
    const name = typeof named === 'string' ? normalizePeerName(named) : null;
    if (claim === null || name === null || !name.ok) {
      throw new HubError(
        'HUB_ERR_PEER_PROTOCOL_TOO_OLD',
        `the Hub at ${found.address} took the request without saying its name and key, so it cannot be paired with by address; pair with it by its MagicDNS name instead`,
      );
    }
    // From here the other Hub has spent its PIN and holds a PIN-verified request from this Hub.
    // A refusal takes that request back first, as a refusal by name does (pairing-service.ts):
    // left there, it answered the operator's retry with a 409 until rejected by hand.
    const selfName = self.nodeFqdn;
    const refuse = async (code: ErrorCode, what: string, then: string | null): Promise<never> => {
      const failed = await this.#withdraw(found, selfName, me, claim.nodeUuid);
      this.#d.logger.warn(
        { address: authority(found.address, found.port), peer: name.name, code, withdrawn: failed === null, ...(failed === null ? {} : { reason: failed }) },
        failed === null
          ? 'pairing by address refused after the other Hub took the PIN; the request there was withdrawn'
          : 'pairing by address refused after the other Hub took the PIN; the request there could not be withdrawn',
      );
      const after =
        failed === null
          ? 'the request was withdrawn there, and its PIN is spent'
          : `the request could not be withdrawn there (${failed}), so it waits there until its operator rejects it (cihub pool reject ${selfName} on that Hub), and its PIN is spent`;
      throw new HubError(code, [what, after, then].filter((part) => part !== null).join('; '));
    };
    const freshPin = 'mint a fresh PIN there (cihub pool pairing-pin) and pair again';
    if (name.name === selfName || claim.nodeUuid === me.nodeUuid)
      return refuse('HUB_ERR_PAIR_SELF', `${found.address} is this Hub itself (it answered with this Hub's name or node UUID)`, null);
    if (!belongsToTailnet(name.name, self.tailnetSuffix)) {
      return refuse(
        'HUB_ERR_PAIR_OUTSIDE_TAILNET',
        `the Hub at ${found.address} is ${name.name}, which is not on this Hub's tailnet (${self.tailnetSuffix})`,
        `peers reach each other over the tailnet, so join it there first, then ${freshPin}`,
      );
    }
    // An expired request the once-a-minute sweep has not reached yet is no request: it must not
    // refuse this one, whose PIN the other Hub has already spent.
    this.#d.store.deleteExpiredPending(new Date(this.#d.clock.nowMs()).toISOString());
    const existing = this.#d.store.byFqdn(name.name) ?? this.#d.store.byUuid(claim.nodeUuid);
    if (existing)
      return refuse(
        'HUB_ERR_CONFLICT',
        `this Hub already has ${withArticle(existing.status)} row for ${existing.nodeFqdn}`,
        `unpair it here first (cihub pool unpair ${existing.nodeFqdn}), then ${freshPin}`,
      );
    // The answer carries the key the rotation is destroying, and phase two would delete the row unannounced.
    if (this.#d.rotating?.())
      return refuse('HUB_ERR_CONFLICT', 'this Hub began rotating its identity key while the request was out', `once the rotation has finished, ${freshPin}`);
    const now = this.#d.clock.nowMs();
    // Learned from a response to our PIN: the peer verified the PIN and holds our key, so this side
    // signs at once, and so does the peer's confirmation. No token is kept to check: the request
    // went to a plain-HTTP address, and a kept token let whoever overheard it confirm the pairing.
    const row = this.#d.store.insert({
      nodeFqdn: name.name,
      direction: 'outbound',
      status: 'pending',
      peerNodeUuid: claim.nodeUuid,
      peerPublicKey: claim.publicKey,
      pinVerified: true,
      issuedTokenHash: null,
      presentTokenSealed: null,
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + PAIRING_REQUEST_TTL_MS).toISOString(),
    });
    this.#d.logger.info({ peer: name.name }, 'pairing request sent by address; the peer named itself in its answer');
    this.#d.onSent?.(row);
    return { peer: row, pinVerified: true };
  }

  /**
   * Takes back the request the Hub at this address just accepted: a signed unpair through the
   * address check and a pinned dial again, with the UUID it answered with (it pinned this Hub's
   * key from the request, so it can verify the signature). Null when it confirmed; else why not.
   */
  async #withdraw(found: ProbeResult, selfName: string, me: { nodeUuid: string; sign(data: Buffer): Buffer }, peerUuid: string): Promise<string | null> {
    const path = '/api/inference/pool/pair/unpair';
    const body = Buffer.from('{}');
    let dial: Dial;
    try {
      dial = await this.#dial(found.address, found.port);
    } catch (err) {
      return (err as Error).message;
    }
    try {
      const signed = signRequest({
        sign: me.sign,
        senderUuid: me.nodeUuid,
        senderFqdn: selfName,
        recipientUuid: peerUuid,
        method: 'POST',
        path,
        body,
        nowMs: this.#d.clock.nowMs(),
      });
      const res = await request(`${dial.origin}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...signed },
        body,
        dispatcher: dial.dispatcher,
        headersTimeout: PAIRING_CALL_TIMEOUT_MS,
        bodyTimeout: PAIRING_CALL_TIMEOUT_MS,
        signal: AbortSignal.timeout(PAIRING_CALL_TIMEOUT_MS),
      });
      await readBounded(res.body, { maxBytes: ANSWER_MAX_BYTES, timeoutMs: PAIRING_CALL_TIMEOUT_MS }, res.headers['content-length']);
      return res.statusCode === 200 ? null : `HTTP ${res.statusCode}`;
    } catch (err) {
      return describeCallFailure(err, PAIRING_CALL_TIMEOUT_MS);
    } finally {
      await dial.close();
    }
  }

  #target(raw: unknown): AddressTarget {
    const parsed = typeof raw === 'string' ? parseAddressTarget(raw) : { ok: false as const, reason: notText('address', raw) };
    if (!parsed.ok) throw new HubError('HUB_ERR_ADDRESS_REFUSED', parsed.reason);
    return parsed.target;
  }

  /** Checks the address (resolving a name) and returns a dial pinned to what passed. */
  async #dial(host: string, port: number): Promise<Dial> {
    const check = await checkPoolTarget(host, this.#d.resolve);
    if (!check.ok) throw new HubError('HUB_ERR_ADDRESS_REFUSED', `not dialled: ${check.reason}`);
    const mapped = mappedAddressOrigin(host, port, this.#d.addressOrigins);
    if (mapped !== null) return { origin: mapped, dispatcher: this.#d.dispatcher, close: async () => undefined };
    const agent = pinnedAgent(check.addresses);
    return { origin: `http://${authority(host, port)}`, dispatcher: agent, close: () => agent.close() };
  }
}

/** "a connected", "an unreachable": the article by the word's first letter (the row statuses are plain English words). */
function withArticle(word: string): string {
  return `${/^[aeiou]/i.test(word) ? 'an' : 'a'} ${word}`;
}
