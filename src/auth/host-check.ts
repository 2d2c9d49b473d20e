/**
 * DNS rebinding defence: a request is answered only when its Host names this Hub. A web page
 * that rebinds its own name to 127.0.0.1 reaches the socket, but its browser still sends the
 * page's name as Host, so it is refused here. IP literals always pass: a page whose origin is
 * an IP literal is same-origin with that address and gains nothing by it.
 */
import { isIP } from 'node:net';

export interface HostNames {
  /** This Hub's MagicDNS name; null when it has none. */
  readonly selfFqdn: string | null;
  /** The machine's host name, as the OS reports it. */
  readonly machineName: string | null;
  /** HUB_ALLOWED_HOSTS, already normalised; a `*.` entry allows its subdomains. */
  readonly extra: readonly string[];
}

/** The name part of a Host header, lower-cased, without port, brackets or trailing dot; null when unreadable. */
export function hostName(header: string): string | null {
  const value = header.trim().toLowerCase();
  if (value === '') return null;
  if (value.startsWith('[')) {
    const close = value.indexOf(']');
    return close < 0 ? null : value.slice(1, close);
  }
  const colon = value.indexOf(':');
  if (colon >= 0 && value.indexOf(':', colon + 1) >= 0) return value; // a bare IPv6 literal
  return (colon < 0 ? value : value.slice(0, colon)).replace(/\.$/, '');
}

/** Names that need no configuration: IP literals and the loopback names. */
export function isLocalName(name: string): boolean {
  return isIP(name) !== 0 || name === 'localhost' || name.endsWith('.localhost');
}

/** Whether a Host name is one this Hub answers to, besides the local ones. */
export function isOwnName(name: string, names: HostNames): boolean {
  if (name === names.selfFqdn || name === names.machineName) return true;
  return names.extra.some((entry) => (entry.startsWith('*.') ? name.endsWith(entry.slice(1)) : name === entry));
}
