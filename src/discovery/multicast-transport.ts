/**
 * The real mDNS transport: multicast-dns (port 5353, group 224.0.0.251) on the interface the Hub
 * listens on (multicast-interface.ts). A Hub on a loopback address (127.0.0.1, ::1, localhost) is
 * heard on this machine and nowhere else; a Hub bound to one IPv4 address announces and listens on
 * that address's interface only; a Hub bound to every address (0.0.0.0, ::) uses the system's
 * default multicast interface. Packet decoding failures surface as the library's 'warning' and
 * are dropped.
 */
import makeMdns from 'multicast-dns';
import type { MdnsTransport } from './lan-presence.js';
import { multicastInterface } from './multicast-interface.js';

export function openMulticastDns(listenHost: string): MdnsTransport {
  const iface = multicastInterface(listenHost);
  // Bound to every address either way: a socket bound to the interface's own address would never
  // receive packets sent to the group.
  const mdns = makeMdns(iface === null ? {} : { interface: iface, bind: '0.0.0.0' });
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
