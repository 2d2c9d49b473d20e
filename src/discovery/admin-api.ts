/**
 * The Tailscale Admin API, for the one thing the Hub asks it: which devices are on the tailnet
 * (protocols.md §6.3-6.4). An OAuth client (TAILSCALE_OAUTH_CLIENT_ID / _SECRET, scope
 * devices:core:read) is exchanged for a bearer token with the client-credentials grant; the
 * token is reused until a minute before it expires (Tailscale issues them for an hour).
 * Answers are untrusted input: read with a bound and parsed with zod. Failures are records.
 */
import { request } from '../util/undici-lean.js';
import type { Dispatcher } from 'undici';
import { z } from 'zod';
import { parseJsonOrUndefined, readBounded } from '../util/bounded-read.js';
import { elapsedMs, type Clock } from '../util/clock.js';
import { describeCallFailure } from '../util/call-failure.js';
import { normalizePeerName } from '../tailnet/peer-name.js';
import type { TailnetDevice } from '../tailnet/tailscale-status.js';

/** Where the Admin API lives. Not configurable: tests hand AdminApiClient a loopback fake instead. */
export const TAILSCALE_API_BASE_URL = 'https://api.tailscale.com';
/** One Admin API call, token or device list; a caller's deadline can cut it shorter. */
export const ADMIN_API_TIMEOUT_MS = 10_000;
/** A token is renewed this long before it expires, so no call goes out with one about to lapse. */
export const TOKEN_RENEW_BEFORE_EXPIRY_MS = 60_000;
/** When the token answer gives no lifetime: Tailscale's documented one hour. */
export const DEFAULT_TOKEN_LIFETIME_MS = 60 * 60_000;
/** A token answer is a few hundred bytes. */
const TOKEN_MAX_BYTES = 64 * 1024;
/** A device is about 1 KiB with the default fields; 16 MiB is a tailnet of thousands. */
const DEVICES_MAX_BYTES = 16 * 1024 * 1024;
/** Devices read from one answer; the rest are ignored. */
export const MAX_ADMIN_DEVICES = 10_000;

const TOKEN = z.object({
  access_token: z.string().min(1).max(4096),
  token_type: z.string().max(64).optional(),
  expires_in: z
    .number()
    .int()
    .positive()
    .max(7 * 24 * 3600)
    .optional(),
});
const DEVICE = z
  .object({
    name: z.string().max(1024).optional().catch(undefined),
    hostname: z.string().max(1024).optional().catch(undefined),
    os: z.string().max(256).optional().catch(undefined),
    nodeId: z.string().max(256).optional().catch(undefined),
    id: z.string().max(256).optional().catch(undefined),
    connectedToControl: z.boolean().optional().catch(undefined),
  })
  .passthrough();
const DEVICES = z.object({ devices: z.array(z.unknown()).max(MAX_ADMIN_DEVICES * 10) });

export type AdminApiAnswer<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

/** One call's outcome: a failure keeps the HTTP status it carried (null when nothing answered). */
type CallAnswer = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: string; readonly status: number | null };

export interface AdminApiDeps {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly clock: Clock;
  /** TAILSCALE_API_BASE_URL in production; a loopback fake in tests. */
  readonly baseUrl?: string;
  readonly dispatcher?: Dispatcher;
}

export class AdminApiClient {
  readonly #d: AdminApiDeps;
  /**
   * The bearer token, with when it was asked for (on the injected clock) and how long it was issued
   * for. Kept as a start and a length rather than an expiry moment: after the wall clock is set
   * back, an expiry moment lay hours ahead, and a token Tailscale had already expired went out
   * until a call came back 401 (clock.ts, elapsedMs).
   */
  #token: { value: string; askedAtMs: number; lifetimeMs: number } | null = null;

  constructor(deps: AdminApiDeps) {
    this.#d = deps;
  }

  /**
   * Every device on `tailnet` ("-" is the OAuth client's own tailnet) with a usable MagicDNS name.
   * With `deadlineMs` (on the injected clock) the token exchange and the list together end by
   * then, each call still within ADMIN_API_TIMEOUT_MS; a discovery scan passes its own deadline.
   */
  async devices(tailnet: string, deadlineMs: number | null = null): Promise<AdminApiAnswer<TailnetDevice[]>> {
    const token = await this.#bearer(deadlineMs);
    if (!token.ok) return token;
    const answer = await this.#call(
      'GET',
      `/api/v2/tailnet/${encodeURIComponent(tailnet)}/devices`,
      { authorization: `Bearer ${token.value}` },
      undefined,
      DEVICES_MAX_BYTES,
      deadlineMs,
    );
    if (!answer.ok) {
      // A token the server no longer takes is dropped, so the next call asks for a new one.
      if (answer.status === 401) this.#token = null;
      return { ok: false, error: `the device list request failed: ${answer.error}` };
    }
    const list = DEVICES.safeParse(answer.value);
    if (!list.success) return { ok: false, error: "the device list is not in the Admin API's shape" };
    const devices: TailnetDevice[] = [];
    for (const raw of list.data.devices.slice(0, MAX_ADMIN_DEVICES)) {
      const d = DEVICE.safeParse(raw);
      if (!d.success || d.data.name === undefined) continue;
      const name = normalizePeerName(d.data.name);
      if (!name.ok) continue;
      devices.push({
        nodeFqdn: name.name,
        hostName: d.data.hostname ?? null,
        os: d.data.os ?? null,
        online: d.data.connectedToControl ?? null,
        deviceId: d.data.nodeId ?? d.data.id ?? null,
      });
    }
    return { ok: true, value: devices };
  }

  async #bearer(deadlineMs: number | null): Promise<AdminApiAnswer<string>> {
    const now = this.#d.clock.nowMs();
    const token = this.#token;
    if (token !== null && elapsedMs(now, token.askedAtMs) < token.lifetimeMs - TOKEN_RENEW_BEFORE_EXPIRY_MS) return { ok: true, value: token.value };
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: this.#d.clientId, client_secret: this.#d.clientSecret }).toString();
    const answer = await this.#call('POST', '/api/v2/oauth/token', { 'content-type': 'application/x-www-form-urlencoded' }, form, TOKEN_MAX_BYTES, deadlineMs);
    if (!answer.ok) {
      // Only a refusal says anything about the client id and secret (Tailscale answers 400 or 401 to a bad pair).
      const refused = answer.status === 400 || answer.status === 401;
      return {
        ok: false,
        error: refused
          ? `the OAuth token request was refused (${answer.error}); check TAILSCALE_OAUTH_CLIENT_ID and TAILSCALE_OAUTH_CLIENT_SECRET`
          : `the OAuth token request failed: ${answer.error}`,
      };
    }
    const issued = TOKEN.safeParse(answer.value);
    if (!issued.success) return { ok: false, error: 'the OAuth token answer carries no access_token' };
    const lifetimeMs = issued.data.expires_in === undefined ? DEFAULT_TOKEN_LIFETIME_MS : issued.data.expires_in * 1000;
    this.#token = { value: issued.data.access_token, askedAtMs: now, lifetimeMs };
    return { ok: true, value: issued.data.access_token };
  }

  async #call(
    method: 'GET' | 'POST',
    path: string,
    headers: Record<string, string>,
    body: string | undefined,
    maxBytes: number,
    deadlineMs: number | null,
  ): Promise<CallAnswer> {
    const timeoutMs = deadlineMs === null ? ADMIN_API_TIMEOUT_MS : Math.min(ADMIN_API_TIMEOUT_MS, deadlineMs - this.#d.clock.nowMs());
    if (timeoutMs <= 0) return { ok: false, error: 'not asked: no time was left before the deadline', status: null };
    const url = `${this.#d.baseUrl ?? TAILSCALE_API_BASE_URL}${path}`;
    try {
      const res = await request(url, {
        method,
        headers: { accept: 'application/json', ...headers },
        body,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        signal: AbortSignal.timeout(timeoutMs),
        ...(this.#d.dispatcher ? { dispatcher: this.#d.dispatcher } : {}),
      });
      const bytes = await readBounded(res.body, { maxBytes, timeoutMs }, res.headers['content-length']);
      if (res.statusCode !== 200) return { ok: false, error: `HTTP ${res.statusCode}`, status: res.statusCode };
      const json = parseJsonOrUndefined(bytes);
      return json === undefined ? { ok: false, error: 'the answer is not JSON', status: res.statusCode } : { ok: true, value: json };
    } catch (err) {
      return { ok: false, error: describeCallFailure(err, timeoutMs), status: null };
    }
  }
}
