/**
 * The interface the opt-in LAN announcement (multicast-dns, IPv4 group 224.0.0.251) goes out on,
 * from the address the Hub listens on: announcing reaches exactly the machines that could connect.
 * A Hub on a loopback address is reached from this machine alone, so it announces on loopback,
 * whichever way the address is written: ::1 and localhost as well as 127.0.0.1 (before, only an
 * IPv4 literal chose an interface, so a Hub on ::1 announced its port to the whole LAN, where
 * nothing could reach it). A Hub on one IPv4 address announces on that address's interface.
 */
import { isIPv4 } from 'node:net';
import { classifyAddress } from '../auth/address-class.js';

/** The IPv4 address naming the interface; null for the system's default multicast interface. */
export function multicastInterface(listenHost: string): string | null {
  const host = listenHost.trim().toLowerCase();
  // An IPv4-mapped address (::ffff:192.168.1.5) is the IPv4 address it carries.
  const ipv4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(host)?.[1] ?? host;
  if (isIPv4(ipv4)) return ipv4 === '0.0.0.0' ? null : ipv4;
  if (host === 'localhost' || host.endsWith('.localhost') || classifyAddress(host) === 'loopback') return '127.0.0.1';
  // Every address (::), another IPv6 address or a host name: which IPv4 interface carries it is not
  // known here, so the system's default.
  return null;
}
