/**
 * The opt-in LAN source (guide, "How Hubs find each other"; setting poolLanDiscovery, off by
 * default). While it is on, the Hub answers mDNS queries for _cihub._tcp with its own
 * announcement, and a discovery scan listens for other Hubs' answers for LAN_BROWSE_WINDOW_MS.
 * While it is off no socket exists at all: the transport is opened on the switch, closed when it
 * goes off, and never opened on any polling path. Nothing heard can throw out of here: a handler
 * failure is logged and the packet dropped, and a socket error closes the socket and is reported.
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { elapsedMs, type Clock } from '../util/clock.js';
import { announcementRecords, heardFromPacket, instanceName, LAN_SERVICE_TYPE, queryAsksForHubs, type LanHeard, type LanSelf } from './lan-announcement.js';

/** How long a scan listens for answers: mDNS responders answer within about 120 ms, with slack for a busy host. */
export const LAN_BROWSE_WINDOW_MS = 1_500;
/** At most one answer this often, so a flood of queries cannot make the Hub flood the LAN. */
export const LAN_ANSWER_MIN_INTERVAL_MS = 200;
/** Announcements kept from one scan (before de-duplication); the rest are not read. */
export const MAX_HEARD_PER_SCAN = 256;

/** The thinnest seam over multicast-dns, so the switch and the browse can be tested without a socket. */
export interface MdnsTransport {
  onQuery(handler: (packet: unknown, senderAddress: string) => void): void;
  onResponse(handler: (packet: unknown, senderAddress: string) => void): void;
  onError(handler: (err: Error) => void): void;
  query(name: string): void;
  respond(answers: ReturnType<typeof announcementRecords>): void;
  destroy(): void;
}

export type LanScan =
  | { readonly state: 'off' }
  | { readonly state: 'ok'; readonly heard: readonly LanHeard[] }
  /** The socket could not be opened or failed; detail says why (e.g. port 5353 taken). */
  | { readonly state: 'failed'; readonly detail: string };

export interface LanPresenceDeps {
  readonly enabled: () => boolean;
  readonly nodeFqdn: () => Promise<string | null>;
  readonly hostName: string;
  /** The Hub API's listening port (known once the server listens). */
  readonly port: () => number;
  readonly open: () => MdnsTransport;
  readonly clock: Clock;
  readonly logger: Logger;
}

export class LanPresence {
  readonly #d: LanPresenceDeps;
  /** This process's announcement id; its own answers come back to it and are dropped by it. */
  readonly id = randomBytes(4).toString('hex');
  #transport: MdnsTransport | null = null;
  #self: LanSelf | null = null;
  #lastAnswerMs = Number.NEGATIVE_INFINITY;
  #failure: string | null = null;
  #listeners = new Set<(packet: unknown, from: string) => void>();
  #syncing: Promise<void> = Promise.resolve();
  /** Set on shutdown: no switch or scan opens a socket after it. */
  #stopped = false;

  constructor(deps: LanPresenceDeps) {
    this.#d = deps;
  }

  /** Opens or closes the socket to match the setting. Never rejects. */
  sync(): Promise<void> {
    this.#syncing = this.#syncing
      .then(() => this.#apply())
      .catch((err: unknown) => {
        this.#d.logger.warn({ err }, 'LAN discovery (mDNS) could not be switched');
      });
    return this.#syncing;
  }

  get open(): boolean {
    return this.#transport !== null;
  }

  async #apply(): Promise<void> {
    if (this.#stopped || !this.#d.enabled()) {
      this.close();
      this.#failure = null;
      return;
    }
    if (this.#transport !== null) return;
    const self: LanSelf = { id: this.id, hostLabel: this.#d.hostName, nodeFqdn: await this.#d.nodeFqdn(), port: this.#d.port() };
    // The name read may have taken a while: the switch or a shutdown may have moved meanwhile.
    if (this.#stopped || !this.#d.enabled()) return;
    let transport: MdnsTransport;
    try {
      transport = this.#d.open();
    } catch (err) {
      this.#fail(err);
      return;
    }
    this.#self = self;
    this.#transport = transport;
    this.#failure = null;
    const own = instanceName(self);
    transport.onError((err) => this.#fail(err));
    transport.onQuery((packet) => {
      try {
        if (queryAsksForHubs(packet, own)) this.#answer();
      } catch (err) {
        this.#d.logger.debug({ err }, 'an mDNS query could not be read; ignored');
      }
    });
    transport.onResponse((packet, from) => {
      for (const listener of this.#listeners) {
        try {
          listener(packet, from);
        } catch (err) {
          this.#d.logger.debug({ err }, 'an mDNS answer could not be read; ignored');
        }
      }
    });
    // Not `service`: the Hub's logger writes service: 'cihub' on every line, and a second key of
    // that name gave the line a duplicate JSON key (parsers keep one or the other).
    this.#d.logger.info({ mdnsService: LAN_SERVICE_TYPE, instance: own }, 'LAN discovery (mDNS) on: announcing this Hub on the local network');
    this.#answer();
  }

  /** An answer sent ahead of a wall clock set back since does not hold the next one off (elapsedMs, util/clock.ts). */
  #answer(): void {
    const now = this.#d.clock.nowMs();
    if (this.#transport === null || this.#self === null || elapsedMs(now, this.#lastAnswerMs) < LAN_ANSWER_MIN_INTERVAL_MS) return;
    this.#lastAnswerMs = now;
    this.#transport.respond(announcementRecords(this.#self));
  }

  #fail(err: unknown): void {
    this.#failure = err instanceof Error ? err.message : String(err);
    this.#d.logger.warn({ err: this.#failure }, 'LAN discovery (mDNS) socket failed; closed, and the next discovery scan tries to open it again');
    this.close();
  }

  /**
   * Listens for other Hubs for LAN_BROWSE_WINDOW_MS (asking twice, in case an answer was
   * rate-limited). Only a discovery scan calls this. Off: resolves at once without a socket.
   */
  async browse(windowMs = LAN_BROWSE_WINDOW_MS): Promise<LanScan> {
    if (this.#stopped || !this.#d.enabled()) return { state: 'off' };
    await this.sync();
    const transport = this.#transport;
    if (transport === null) return { state: 'failed', detail: this.#failure ?? 'the mDNS socket is not open' };
    const heard: LanHeard[] = [];
    const listener = (packet: unknown, from: string) => {
      if (heard.length < MAX_HEARD_PER_SCAN) heard.push(...heardFromPacket(packet, from).slice(0, MAX_HEARD_PER_SCAN - heard.length));
    };
    this.#listeners.add(listener);
    try {
      transport.query(LAN_SERVICE_TYPE);
      await new Promise((res) => setTimeout(res, windowMs / 2));
      this.#transport?.query(LAN_SERVICE_TYPE);
      await new Promise((res) => setTimeout(res, windowMs / 2));
    } finally {
      this.#listeners.delete(listener);
    }
    return { state: 'ok', heard };
  }

  /** On shutdown: closes the socket, and nothing opens one again. */
  stop(): void {
    this.#stopped = true;
    this.close();
  }

  close(): void {
    const transport = this.#transport;
    this.#transport = null;
    this.#self = null;
    if (transport === null) return;
    try {
      transport.destroy();
    } catch (err) {
      this.#d.logger.debug({ err }, 'closing the mDNS socket failed');
    }
    this.#d.logger.info('LAN discovery (mDNS) off: socket closed');
  }
}
