/**
 * Which addresses this Hub may dial to find or pair with another Hub (spec: "Finding a peer by
 * address"; issue 9, #19). Only the ranges a home lab or a tailnet hands out: RFC 1918, CGNAT
 * 100.64.0.0/10 (Tailscale's IPv4 range) and IPv6 ULA fc00::/7 (Tailscale's IPv6 range is in it).
 * Everything else is refused with its reason: loopback and link-local above all, because
 * 169.254.169.254 and fd00:ec2::254 are cloud metadata endpoints that answer any local process.
 * A host name passes only when every address it resolves to passes, so a name cannot smuggle a
 * refused address in beside an allowed one.
 *
 * This is not the inbound origin check (auth/): that one asks "did this come from inside",
 * where loopback is the most inside there is.
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

export type AddressCheck = { readonly ok: true; readonly addresses: readonly ResolvedAddress[] } | { readonly ok: false; readonly reason: string };

/** Every address a host name resolves to (A and AAAA), as the system resolver answers. */
export type Resolver = (host: string) => Promise<readonly { address: string; family: number }[]>;

export const systemResolver: Resolver = (host) => lookup(host, { all: true, verbatim: true });

function blockList(entries: readonly (readonly [string, number, 'ipv4' | 'ipv6'])[]): BlockList {
  const list = new BlockList();
  for (const [net, prefix, type] of entries) list.addSubnet(net, prefix, type);
  return list;
}

const ALLOWED = blockList([
  ['10.0.0.0', 8, 'ipv4'],
  ['172.16.0.0', 12, 'ipv4'],
  ['192.168.0.0', 16, 'ipv4'],
  ['100.64.0.0', 10, 'ipv4'],
  ['fc00::', 7, 'ipv6'],
]);

/** Refused ranges that deserve their own words; anything else outside ALLOWED is "public". */
const NAMED_REFUSALS: readonly (readonly [BlockList, string])[] = [
  [
    blockList([
      ['169.254.169.254', 32, 'ipv4'],
      ['fd00:ec2::254', 128, 'ipv6'],
      ['100.100.100.200', 32, 'ipv4'],
    ]),
    'a cloud metadata endpoint',
  ],
  [
    blockList([
      ['100.100.100.100', 32, 'ipv4'],
      ['fd7a:115c:a1e0::53', 128, 'ipv6'],
    ]),
    "Tailscale's own resolver address, not a device",
  ],
  [
    blockList([
      ['127.0.0.0', 8, 'ipv4'],
      ['::1', 128, 'ipv6'],
    ]),
    'loopback',
  ],
  [
    blockList([
      ['169.254.0.0', 16, 'ipv4'],
      ['fe80::', 10, 'ipv6'],
    ]),
    'link-local',
  ],
  [
    blockList([
      ['0.0.0.0', 8, 'ipv4'],
      ['::', 128, 'ipv6'],
    ]),
    'unspecified',
  ],
  [
    blockList([
      ['224.0.0.0', 4, 'ipv4'],
      ['ff00::', 8, 'ipv6'],
    ]),
    'multicast',
  ],
];

/** An IPv4 address written as IPv6 (::ffff:10.0.0.1) is judged as the IPv4 address it is. */
function unmapped(ip: string): { address: string; type: 'ipv4' | 'ipv6' } {
  const lower = ip.toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (mapped) return { address: mapped[1]!, type: 'ipv4' };
  return { address: lower, type: isIP(lower) === 4 ? 'ipv4' : 'ipv6' };
}

/** Why this IP literal may not be dialled, or null when it may. */
export function addressRefusal(ip: string): string | null {
  const bare = ip.replace(/%.*$/, '');
  if (isIP(bare) === 0) return `${ip} is not an IP address`;
  const { address, type } = unmapped(bare);
  for (const [list, what] of NAMED_REFUSALS) if (list.check(address, type)) return `${ip} is ${what}`;
  // Checked after the named refusals: fd00:ec2::254 is inside fc00::/7.
  if (ALLOWED.check(address, type)) return null;
  return `${ip} is a public address`;
}

/**
 * Resolves `host` (an IP literal resolves to itself) and checks every address. The addresses
 * returned are the ones to dial: a caller pins its connection to them rather than resolving
 * again, so an answer that changes between check and connect (DNS rebinding) is never used.
 */
export async function checkPoolTarget(host: string, resolve: Resolver = systemResolver): Promise<AddressCheck> {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (isIP(bare.replace(/%.*$/, '')) !== 0) {
    const refusal = addressRefusal(bare);
    return refusal === null
      ? { ok: true, addresses: [{ address: bare, family: isIP(bare.replace(/%.*$/, '')) as 4 | 6 }] }
      : { ok: false, reason: `${refusal}; only private LAN (RFC 1918), CGNAT/tailnet (100.64.0.0/10) and IPv6 ULA addresses are dialled` };
  }
  let answers: readonly { address: string; family: number }[];
  try {
    answers = await resolve(bare);
  } catch (err) {
    return { ok: false, reason: `${bare} did not resolve (${(err as { code?: string }).code ?? 'no answer'})` };
  }
  if (answers.length === 0) return { ok: false, reason: `${bare} resolved to no address` };
  for (const a of answers) {
    const refusal = addressRefusal(a.address);
    if (refusal !== null)
      return {
        ok: false,
        reason: `${bare} resolves to ${a.address}, and ${refusal.slice(a.address.length + 1)}; a name is dialled only when every address it resolves to is private`,
      };
  }
  return { ok: true, addresses: answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 })) };
}
