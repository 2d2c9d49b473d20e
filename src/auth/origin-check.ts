/**
 * The origin half of the inference guard (spec, "What guards what"): a request is from
 * inside the machine when its source is private, it carries no reverse-proxy provenance
 * (cf-ray and friends: a tunnel's own address is private too, so the source alone would
 * pass public traffic), and every X-Forwarded-For hop is private. Tailnet callers count as
 * inside unless HUB_INFERENCE_TAILNET_AUTH=require-key. This is an origin check, not caller
 * authentication; callers it refuses may still present an inference key.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { classifyAddress, type AddressClass } from './address-class.js';

/** Headers only a reverse proxy or CDN adds. */
const PROVENANCE_HEADERS = ['cf-ray', 'cf-connecting-ip', 'cf-ipcountry', 'cf-visitor', 'cdn-loop', 'true-client-ip', 'x-real-ip'];

/** The first header only a reverse proxy or CDN adds that the request carries; null when none. */
export function proxyProvenance(headers: IncomingHttpHeaders): string | null {
  return PROVENANCE_HEADERS.find((h) => headers[h] !== undefined) ?? null;
}

export type OriginVerdict = { readonly inside: true } | { readonly inside: false; readonly why: string };

const INSIDE: OriginVerdict = Object.freeze({ inside: true });

export function checkOrigin(remoteAddress: string | undefined, headers: IncomingHttpHeaders, tailnetRequiresKey: boolean): OriginVerdict {
  const provenance = proxyProvenance(headers);
  if (provenance !== null) return { inside: false, why: `it came through a reverse proxy (${provenance})` };
  // The socket's address first, then each forwarded hop in order. A request without forwarding
  // headers (every app on the machine) builds no list of hops.
  const own = judge(classifyAddress(remoteAddress ?? ''), tailnetRequiresKey);
  if (own) return { inside: false, why: own };
  if (headers['x-forwarded-for'] === undefined && headers.forwarded === undefined) return INSIDE;
  for (const hop of forwardedHops(headers)) {
    const verdict = judge(classifyAddress(hop), tailnetRequiresKey);
    if (verdict) return { inside: false, why: verdict };
  }
  return INSIDE;
}

function judge(cls: AddressClass, tailnetRequiresKey: boolean): string | null {
  switch (cls) {
    case 'loopback':
    case 'private':
      return null;
    case 'tailnet':
      return tailnetRequiresKey ? 'this Hub requires a key from tailnet callers (HUB_INFERENCE_TAILNET_AUTH=require-key)' : null;
    case 'public':
      return "it came from outside this machine's networks";
    case 'invalid':
      return 'its source address could not be read';
  }
}

function forwardedHops(headers: IncomingHttpHeaders): string[] {
  const hops: string[] = [];
  const xff = headers['x-forwarded-for'];
  for (const value of Array.isArray(xff) ? xff : xff ? [xff] : [])
    hops.push(
      ...value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    );
  const fwd = headers.forwarded;
  if (typeof fwd === 'string') {
    for (const m of fwd.matchAll(/for="?\[?([^\]";,]+)\]?"?/gi)) hops.push(m[1]!.replace(/:\d+$/, (p) => (m[1]!.includes('.') ? '' : p)));
  }
  return hops;
}
