/**
 * What a Hub says about itself over mDNS on the LAN, and how an announcement heard there is read
 * (guide, "How Hubs find each other": the opt-in LAN source). Pure. Everything heard is a claim
 * from anything on the network, so it is read defensively: bounded names and counts, a fixed
 * character set, the address taken from the packet's sender rather than from a record, and any
 * record that does not fit the shape skipped rather than thrown on.
 */
import { isIP } from 'node:net';
import { normalizePeerName } from '../tailnet/peer-name.js';

/** The DNS-SD service type a Hub announces under. */
export const LAN_SERVICE_TYPE = '_cihub._tcp.local';
/** DNS's own limits: a label is at most 63 octets, a name at most 255. */
export const MAX_DNS_LABEL_CHARS = 63;
export const MAX_DNS_NAME_CHARS = 255;
/** Records read from one packet; the rest are ignored (a Hub's own answer is three). */
export const MAX_RECORDS_PER_PACKET = 64;
/** TXT strings read per record, and the length of each (DNS-SD's limit for one string). */
export const MAX_TXT_STRINGS = 16;
export const MAX_TXT_STRING_BYTES = 255;

/** What one Hub puts in its TXT record: the keys below, nothing else. */
export interface LanSelf {
  /** A random token per Hub process, so a Hub can tell its own announcement apart. */
  readonly id: string;
  /** This machine's name; its first label, made DNS-safe, is the host shown and starts the instance name. */
  readonly hostLabel: string;
  /** This Hub's MagicDNS name when it has one; null when it is not on a tailnet. */
  readonly nodeFqdn: string | null;
  /** The port the Hub API listens on. */
  readonly port: number;
}

/** One announcement heard on the LAN; every field is the sender's claim except the address. */
export interface LanHeard {
  readonly instance: string;
  /** The sender's TXT id token; null when it sent none. */
  readonly id: string | null;
  readonly hostLabel: string | null;
  /** The MagicDNS name it claims, normalised; null when it claimed none or an unusable one. */
  readonly claimedName: string | null;
  /** Where the packet came from: what `cihub pool probe` would be pointed at. */
  readonly address: string;
  /** The SRV port it claims; null when it sent no SRV record. */
  readonly port: number | null;
}

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** A DNS label made from any text: lower-case letters, digits and hyphens, at most 63 characters. */
export function safeLabel(raw: string): string {
  const cleaned = raw
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_DNS_LABEL_CHARS)
    .replace(/-+$/g, '');
  return cleaned === '' ? 'hub' : cleaned;
}

function hostLabelOf(self: LanSelf): string {
  return safeLabel(self.hostLabel.split('.')[0] ?? '');
}

export function instanceName(self: LanSelf): string {
  return `${safeLabel(`${hostLabelOf(self)}-${self.id}`)}.${LAN_SERVICE_TYPE}`;
}

/** The records this Hub answers with, in the shape multicast-dns sends. */
export function announcementRecords(self: LanSelf) {
  const instance = instanceName(self);
  const txt = [`id=${self.id}`, `host=${hostLabelOf(self)}`, ...(self.nodeFqdn === null ? [] : [`fqdn=${self.nodeFqdn}`])];
  return [
    { name: LAN_SERVICE_TYPE, type: 'PTR' as const, ttl: 120, data: instance },
    { name: instance, type: 'SRV' as const, ttl: 120, data: { port: self.port, target: `${hostLabelOf(self)}.local` } },
    { name: instance, type: 'TXT' as const, ttl: 120, data: txt },
  ];
}

/** Whether a query asks for Hubs (or for this Hub's own instance). */
export function queryAsksForHubs(packet: unknown, ownInstance: string): boolean {
  const questions = (packet as { questions?: unknown } | null)?.questions;
  if (!Array.isArray(questions)) return false;
  return questions.slice(0, MAX_RECORDS_PER_PACKET).some((q) => {
    const name = typeof (q as { name?: unknown })?.name === 'string' ? (q as { name: string }).name.toLowerCase() : '';
    return name === LAN_SERVICE_TYPE || name === ownInstance;
  });
}

interface RawRecord {
  readonly name: string;
  readonly type: string;
  readonly data: unknown;
}

function records(packet: unknown): RawRecord[] {
  if (typeof packet !== 'object' || packet === null) return [];
  const p = packet as { answers?: unknown; additionals?: unknown };
  const all = [...(Array.isArray(p.answers) ? p.answers : []), ...(Array.isArray(p.additionals) ? p.additionals : [])].slice(0, MAX_RECORDS_PER_PACKET);
  return all.flatMap((r: unknown) => {
    if (typeof r !== 'object' || r === null) return [];
    const { name, type, data } = r as { name?: unknown; type?: unknown; data?: unknown };
    if (typeof name !== 'string' || typeof type !== 'string' || name.length > MAX_DNS_NAME_CHARS) return [];
    return [{ name: name.toLowerCase(), type, data }];
  });
}

function txtPairs(data: unknown): Map<string, string> {
  const out = new Map<string, string>();
  const strings = Array.isArray(data) ? data : [data];
  for (const s of strings.slice(0, MAX_TXT_STRINGS)) {
    const text = Buffer.isBuffer(s)
      ? s.length > MAX_TXT_STRING_BYTES
        ? null
        : s.toString('utf8')
      : typeof s === 'string' && s.length <= MAX_TXT_STRING_BYTES
        ? s
        : null;
    if (text === null) continue;
    const eq = text.indexOf('=');
    if (eq <= 0) continue;
    const key = text.slice(0, eq).toLowerCase();
    if (!out.has(key)) out.set(key, text.slice(eq + 1));
  }
  return out;
}

function claimedName(raw: string | undefined): string | null {
  if (raw === undefined || raw.length > MAX_DNS_NAME_CHARS) return null;
  const result = normalizePeerName(raw);
  return result.ok ? result.name : null;
}

/**
 * The Hubs one response packet announces. `sourceAddress` is the sender's address as the
 * socket saw it. A PTR under the service type names an instance; its SRV and TXT, when in the
 * same packet, add a port and the claims. Anything malformed is left out.
 */
export function heardFromPacket(packet: unknown, sourceAddress: string): LanHeard[] {
  if (isIP(sourceAddress) === 0) return [];
  const recs = records(packet);
  const instances = new Set<string>();
  for (const r of recs) {
    if (r.type !== 'PTR' || r.name !== LAN_SERVICE_TYPE || typeof r.data !== 'string') continue;
    const instance = r.data.toLowerCase();
    if (instance.length > MAX_DNS_NAME_CHARS || !instance.endsWith(`.${LAN_SERVICE_TYPE}`)) continue;
    if (!LABEL.test(instance.slice(0, -(LAN_SERVICE_TYPE.length + 1)))) continue;
    instances.add(instance);
  }
  return [...instances].map((instance) => {
    const srv = recs.find((r) => r.type === 'SRV' && r.name === instance)?.data as { port?: unknown } | undefined;
    const port = typeof srv?.port === 'number' && Number.isInteger(srv.port) && srv.port > 0 && srv.port < 65536 ? srv.port : null;
    const txt = txtPairs(recs.find((r) => r.type === 'TXT' && r.name === instance)?.data ?? []);
    const id = txt.get('id');
    const host = txt.get('host');
    return {
      instance,
      id: id !== undefined && LABEL.test(id) ? id : null,
      hostLabel: host !== undefined && LABEL.test(host) ? host : null,
      claimedName: claimedName(txt.get('fqdn')),
      address: sourceAddress,
      port,
    };
  });
}
