/**
 * The real mDNS transport: multicast-dns (port 5353, group 224.0.0.251) on the interface the Hub
 * listens on. A Hub bound to one IPv4 address announces and listens on that address's interface
 * only, so a Hub on 127.0.0.1 is heard on this machine and nowhere else; a Hub bound to every
 * address (0.0.0.0, ::) uses the system's default multicast interface. Packet decoding failures
 * surface as the library's 'warning' and are dropped.
 */
import { isIPv4 } from 'node:net';
import makeMdns from 'multicast-dns';
import type { MdnsTransport } from './lan-presence.js';

export function openMulticastDns(listenHost: string): MdnsTransport {
  // Bound to every address either way: a socket bound to the interface's own address would never
  // receive packets sent to the group.
  const mdns = makeMdns(isIPv4(listenHost) && listenHost !== '0.0.0.0' ? { interface: listenHost, bind: '0.0.0.0' } : {});
  mdns.on('warning', () => {});
  return {
    onQuery: (handler) => mdns.on('query', (packet, rinfo) => handler(packet, rinfo.address)),
    onResponse: (handler) => mdns.on('response', (packet, rinfo) => handler(packet, rinfo.address)),
    onError: (handler) => mdns.on('error', handler),
    query: (name) => mdns.query({ questions: [{ name, type: 'PTR' }] }),
    respond: (answers) => mdns.respond({ answers }),
    destroy: () => mdns.destroy(),
  };
}
