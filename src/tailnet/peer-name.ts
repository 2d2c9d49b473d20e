/**
 * Peer names. A peer is stored under, and later dialled at, its MagicDNS name: whatever
 * this module accepts ends up spliced into `https://<name>/api/...` for every callback,
 * health poll and forwarded request (docs/peer-protocol.md, "Names and transport").
 * So anything that could steer that URL somewhere else (a scheme, user info, a port, a
 * path) is refused outright rather than cleaned up, and so is an IP literal, because a
 * row keyed on an address would be a second identity space beside the name.
 */
import { isIP } from 'node:net';

/** A refusal's `reason` quotes the name; `problem` is the same predicate without it, for a message that shows the value already. */
export type PeerNameResult = { ok: true; name: string } | { ok: false; reason: string; problem: string };

/** DNS limits (RFC 1035 section 2.3.4): 63 octets a label, 253 for the dotted name. */
export const MAX_LABEL_LENGTH = 63;
export const MAX_NAME_LENGTH = 253;

const LABEL_CHARS = /^[a-z0-9-]+$/;

/**
 * Leading and trailing ASCII whitespace only. String.prototype.trim also strips U+FEFF, U+00A0,
 * U+3000 and the line separators, which would let an invisible character ride in on a name
 * that then reads as an ordinary one.
 */
function trimAscii(raw: string): string {
  // A loop, not /^\s+|\s+$/g: the regex's second half restarts at every character of a long
  // run of inner spaces, and a 16 KB name of them cost 0.6 s of the event loop (issue 9's
  // pre-auth limits let an unauthenticated caller send that many).
  let start = 0;
  let end = raw.length;
  while (start < end && isAsciiSpace(raw.charCodeAt(start))) start++;
  while (end > start && isAsciiSpace(raw.charCodeAt(end - 1))) end--;
  return start === 0 && end === raw.length ? raw : raw.slice(start, end);
}

/** Tab, line feed, vertical tab, form feed, carriage return, space. */
function isAsciiSpace(code: number): boolean {
  return code === 0x20 || (code >= 0x09 && code <= 0x0d);
}

/** Trim, lower-case and drop one trailing dot (Tailscale reports DNSName as `host.suffix.`). */
function canonical(raw: string): string {
  const lower = trimAscii(raw).toLowerCase();
  return lower.endsWith('.') ? lower.slice(0, -1) : lower;
}

/** Why a dot-separated name breaks the label rules, or null when every label is fine. */
function labelProblem(name: string): string | null {
  if (name.length > MAX_NAME_LENGTH) return `is longer than ${MAX_NAME_LENGTH} characters`;
  for (const label of name.split('.')) {
    if (label === '') return 'has an empty label (two dots in a row, or a leading dot)';
    if (label.length > MAX_LABEL_LENGTH) return `has a label longer than ${MAX_LABEL_LENGTH} characters`;
    if (!LABEL_CHARS.test(label)) return `has characters outside a-z, 0-9 and '-' in "${label}"`;
    if (label.startsWith('-') || label.endsWith('-')) return `has a label that starts or ends with '-' ("${label}")`;
  }
  return null;
}

/** Refusals for the parts of a URL that must not ride along with a host name. */
function urlPartProblem(value: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:\/\//.test(value)) return 'has a scheme; give the bare host name, not a URL';
  if (value.includes('@')) return 'has credentials (user@host)';
  if (/[/?#]/.test(value)) return 'has a path, query or fragment';
  return null;
}

function ipLiteralProblem(value: string): string | null {
  // Any leading '[' is an IPv6 literal in URL syntax ([::1] or [::1]:443); nothing else uses it.
  if (value.startsWith('[')) return 'is a bracketed IPv6 literal; peers are named, not addressed';
  // A zone id (fe80::1%eth0) is not part of what isIP understands.
  if (isIP(value.replace(/%.*$/, '')) !== 0) return 'is an IP literal; peers are named, not addressed';
  return null;
}

/** The caller's text, shortened and stripped of control characters, for echoing in a reason. */
function quoted(raw: string): string {
  const clean = raw.trim().replace(/[\u0000-\u001f\u007f]/g, '?');
  return clean.length > 120 ? `${clean.slice(0, 120)}...` : clean;
}

const EMPTY: PeerNameResult = Object.freeze({ ok: false, reason: 'name is empty', problem: 'is empty' });

export function normalizePeerName(raw: string): PeerNameResult {
  const trimmed = trimAscii(raw);
  const value = trimmed.toLowerCase();
  // `why` can quote a label of the input, so it is cleaned the same way.
  const refuse = (why: string): PeerNameResult => ({ ok: false, reason: `"${quoted(raw)}" ${quoted(why)}`, problem: quoted(why) });
  if (value === '') return EMPTY;
  // First, so every later test runs on at most a name's length of a caller's text (+1: the
  // trailing dot Tailscale writes, which canonical() drops).
  if (value.length > MAX_NAME_LENGTH + 1) return refuse(`is longer than ${MAX_NAME_LENGTH} characters`);
  const early = urlPartProblem(value) ?? ipLiteralProblem(value);
  if (early) return refuse(early);
  // Before lower-casing is trusted: a few non-ASCII letters lower-case to ASCII ones (the Kelvin
  // sign U+212A to 'k'), so a look-alike would otherwise be accepted as the name it imitates.
  if (/[^\x00-\x7f]/.test(trimmed)) return refuse("has characters outside a-z, 0-9, '-' and '.' (a look-alike is not the letter it imitates)");
  // Only after the IPv6 test, since a bare IPv6 literal is full of colons.
  if (value.includes(':')) return refuse('has a port; peers are dialled at https://<name> on 443');
  const name = canonical(value);
  if (name === '') return EMPTY;
  if (isIP(name) !== 0) return refuse('is an IP literal; peers are named, not addressed');
  const labels = labelProblem(name);
  if (labels) return refuse(labels);
  if (!name.includes('.')) return refuse('is a single label; a MagicDNS name carries the tailnet suffix (host.tailXXXX.ts.net)');
  // WHATWG URL parsing reads a host whose last label is numeric (decimal or 0x-hex) as IPv4,
  // (Node 20: new URL('https://1.2.3').host is '1.2.0.3', and 'https://hub.1' throws), so
  // such a name is either an address in disguise or one that can never be dialled.
  const last = name.slice(name.lastIndexOf('.') + 1);
  if (/^(\d+|0x[0-9a-f]*)$/.test(last)) return refuse('ends in a numeric label, which URL parsers read as an IPv4 address');
  return { ok: true, name };
}

/**
 * A tailnet suffix in the same canonical form as names (a leading dot is tolerated, as in
 * `.tail1234.ts.net`), or null when it is not a usable DNS suffix.
 */
export function normalizeTailnetSuffix(raw: string): string | null {
  const suffix = canonical(raw).replace(/^\./, '');
  return suffix !== '' && labelProblem(suffix) === null ? suffix : null;
}

/**
 * Whether a name sits under this Hub's tailnet suffix. A null suffix means this Hub has joined
 * no tailnet, and then there is nothing to compare against, so any name passes. A suffix that
 * is present but unusable fails closed: it is a misconfiguration, not the absence of a tailnet.
 */
export function belongsToTailnet(name: string, suffix: string | null): boolean {
  if (suffix === null) return true;
  const wanted = normalizeTailnetSuffix(suffix);
  if (wanted === null) return false;
  const candidate = canonical(name);
  return candidate.length > wanted.length + 1 && candidate.endsWith(`.${wanted}`);
}

/**
 * The tailnet a MagicDNS name sits on (`tail9.ts.net` for `hub-z.tail9.ts.net`), or null when the
 * name is not one. Tailscale gives every tailnet a single label under `ts.net`, so a name there
 * belongs to a tailnet whether or not it is this Hub's: it is never a LAN host name, and one under
 * another tailnet can only be a Hub that pooling cannot reach (both Hubs must share a tailnet).
 */
export function tailnetOf(name: string): string | null {
  const labels = canonical(name).split('.');
  if (labels.length < 4 || labels.at(-1) !== 'net' || labels.at(-2) !== 'ts') return null;
  return labels.slice(-3).join('.');
}

/**
 * Why a name under another tailnet than `ownSuffix` can never be paired with, or null when it is
 * not such a name. One sentence for the CLI, which refuses before sending, and the Hub's API.
 */
export function otherTailnetProblem(name: string, ownSuffix: string | null): string | null {
  const theirs = tailnetOf(name);
  if (theirs === null || ownSuffix === null || belongsToTailnet(name, ownSuffix)) return null;
  return `${canonical(name)} is on another tailnet (${theirs}) than this Hub (${normalizeTailnetSuffix(ownSuffix) ?? ownSuffix}); Hubs pair only when both are on the same tailnet, so sign both machines in to one tailnet first`;
}
