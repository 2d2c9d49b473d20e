/**
 * Whether a request comes from a process on this machine with no proxy in between: the socket's
 * peer is loopback or the very address it connected to (a Hub bound to one interface, reached by
 * the CLI at that address), and the request carries no forwarding header. The headers matter
 * because a proxy on this machine (tailscale serve, Traefik, a tunnel) also connects from
 * loopback, on behalf of callers anywhere.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { classifyAddress } from './address-class.js';
import { proxyProvenance } from './origin-check.js';

export interface SocketEnds {
  readonly remoteAddress?: string | undefined;
  readonly localAddress?: string | undefined;
}

/** The IPv4 address inside an IPv4-mapped IPv6 one, so both ends compare alike. */
function plain(address: string): string {
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice('::ffff:'.length) : address;
}

export function fromThisMachine(socket: SocketEnds, headers: IncomingHttpHeaders): boolean {
  if (headers['x-forwarded-for'] !== undefined || headers.forwarded !== undefined || proxyProvenance(headers) !== null) return false;
  const remote = socket.remoteAddress;
  if (remote === undefined) return false;
  if (classifyAddress(remote) === 'loopback') return true;
  return socket.localAddress !== undefined && plain(remote) === plain(socket.localAddress);
}
