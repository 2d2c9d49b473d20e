/**
 * What an operator types to probe or pair by address: `192.168.1.42`, `192.168.1.42:5002`,
 * `fd12::7`, `[fd12::7]:5002` or a LAN host name (`nas.lan:5002`). Parsed strictly: a scheme,
 * credentials or a path are refused rather than ignored, because the result becomes a URL.
 */
import { isIP } from 'node:net';

/** With no port given, the Hub API port, then the development port (spec: "Finding a peer by address"). */
export const DEFAULT_HUB_PORTS = [5002, 3000] as const;

export interface AddressTarget {
  /** An IP literal (IPv6 without brackets) or a lower-case host name. */
  readonly host: string;
  /** null: try DEFAULT_HUB_PORTS in order. */
  readonly port: number | null;
}

const HOST_LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

export function parseAddressTarget(raw: string): { ok: true; target: AddressTarget } | { ok: false; reason: string } {
  const text = raw.trim().toLowerCase();
  if (text === '') return { ok: false, reason: 'the address is empty' };
  if (/[/@?#\s]/.test(text) || text.includes('://'))
    return { ok: false, reason: `${JSON.stringify(raw.slice(0, 80))} is not an address: give ADDRESS or ADDRESS:PORT, without a scheme or path` };
  let host = text;
  let portText: string | null = null;
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  if (bracketed) {
    host = bracketed[1]!;
    portText = bracketed[2] ?? null;
    if (isIP(host) !== 6) return { ok: false, reason: `${host} in brackets is not an IPv6 address` };
  } else if (isIP(text) === 6) {
    host = text;
  } else {
    const colon = text.lastIndexOf(':');
    if (colon >= 0) {
      host = text.slice(0, colon);
      portText = text.slice(colon + 1);
    }
  }
  let port: number | null = null;
  if (portText !== null) {
    port = /^\d{1,5}$/.test(portText) ? Number(portText) : NaN;
    if (!Number.isInteger(port) || port < 1 || port > 65535)
      return { ok: false, reason: `the port in ${raw.trim().slice(0, 80)} must be a whole number from 1 to 65535` };
  }
  if (isIP(host) === 0) {
    const name = host.endsWith('.') ? host.slice(0, -1) : host;
    if (name.length > 253 || !name.split('.').every((l) => HOST_LABEL.test(l)))
      return {
        ok: false,
        // Quoted as typed: with a port split off, the host part alone ("10.0.0.1:5002" of
        // "10.0.0.1:5002:1") is a text the operator never sent.
        reason:
          portText === null
            ? `${JSON.stringify(host.slice(0, 80))} is neither an IP address nor a host name`
            : `${JSON.stringify(raw.trim().slice(0, 80))} is not ADDRESS:PORT: ${JSON.stringify(host.slice(0, 80))} before the port is neither an IP address nor a host name`,
      };
    host = name;
  }
  return { ok: true, target: { host, port } };
}

/** host:port as a URL authority (IPv6 in brackets). */
export function authority(host: string, port: number): string {
  return `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
}
