/**
 * The address hub.json records for the CLI on this machine. It is where the listening socket
 * is bound, not the HUB_HOST text: a host name would have to resolve the same way again in the
 * CLI and would reach the Host check as a name the Hub may not answer to, while an IP literal
 * always passes that check (src/auth/host-check.ts). A wildcard bind is reached on loopback.
 */
import type { AddressInfo } from 'node:net';

/** `http://<ip>:<port>` for a bound socket: loopback of the same family for 0.0.0.0 and ::. */
export function hubInfoUrl(bound: Pick<AddressInfo, 'address' | 'family' | 'port'>): string {
  const ipv6 = bound.family === 'IPv6' || bound.address.includes(':');
  const wildcard = bound.address === '0.0.0.0' || bound.address === '::';
  const address = wildcard ? (ipv6 ? '::1' : '127.0.0.1') : bound.address;
  return `http://${ipv6 ? `[${address}]` : address}:${bound.port}`;
}
