/**
 * The caller address the PIN limiter keys on, beside the claimed name (spec, "What 'a source'
 * means"; issue 9, defect 17). Two rules pull against each other:
 * - A tunnel on this machine (cloudflared) hands the Hub every caller from a loopback address.
 *   Keying on that address is one key for the whole world: two wrong PINs from anyone would back
 *   off the operator's own requester. Such a request is keyed on its claimed name alone; the PIN's
 *   five-guess limit is the bound that matters.
 * - Headers prove nothing about a caller that reached the socket itself: a stranger adding
 *   X-Forwarded-For or cf-ray must not step around the per-address limit (defect 17).
 * So a request counts as tunnelled only when the operator has not named the proxies
 * (HUB_TRUST_PROXY set to a list: the spec then keys on the address they name), its socket is
 * this machine's loopback, no trusted proxy named a client (request.ip is still loopback), and it
 * carries a header only a tunnel or CDN adds. Anything else keys on request.ip: the socket's
 * address, or the client a trusted proxy names. Pure.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { classifyAddress } from '../auth/address-class.js';
import { proxyProvenance } from '../auth/origin-check.js';

/** The address to key on; null when the caller came through a tunnel on this machine and the address names nobody. */
export function limiterSourceIp(
  req: { readonly ip: string; readonly socketAddress: string | undefined; readonly headers: IncomingHttpHeaders },
  proxiesNamed: boolean,
): string | null {
  const tunnelled =
    !proxiesNamed && classifyAddress(req.socketAddress ?? '') === 'loopback' && classifyAddress(req.ip) === 'loopback' && proxyProvenance(req.headers) !== null;
  return tunnelled ? null : req.ip;
}
