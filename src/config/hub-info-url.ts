/**
 * The address hub.json records for the CLI on this machine. It is where the listening socket
 * is bound, not the HUB_HOST text: a host name would have to resolve the same way again in the
 * CLI and would reach the Host check as a name the Hub may not answer to, while an IP literal
 * always passes that check (src/auth/host-check.ts). A wildcard bind is reached at 127.0.0.1,
 * whichever family it is: Node binds '::' dual-stack (libuv clears IPV6_V6ONLY unless asked
 * for ipv6Only), so 127.0.0.1 reaches it, while ::1 does not exist where IPv6 is switched off
 * on loopback, as in a Docker container by default (net.ipv6.conf.all.disable_ipv6=1): there a
 * Hub bound to '::' listened, and a recorded http://[::1]:<port> left the CLI with EADDRNOTAVAIL.
 */
import type { AddressInfo } from 'node:net';

/** `http://<ip>:<port>` for a bound socket: 127.0.0.1 for 0.0.0.0 and ::. */
export function hubInfoUrl(bound: Pick<AddressInfo, 'address' | 'family' | 'port'>): string {
  if (bound.address === '0.0.0.0' || bound.address === '::') return `http://127.0.0.1:${bound.port}`;
  const ipv6 = bound.family === 'IPv6' || bound.address.includes(':');
  return `http://${ipv6 ? `[${bound.address}]` : bound.address}:${bound.port}`;
}
