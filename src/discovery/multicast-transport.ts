/**
 * The real mDNS transport: multicast-dns on the default interface (port 5353, group
 * 224.0.0.251). Packet decoding failures surface as the library's 'warning' and are dropped.
 */
import makeMdns from 'multicast-dns';
import type { MdnsTransport } from './lan-presence.js';

export function openMulticastDns(): MdnsTransport {
  const mdns = makeMdns();
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
