/** Calls that change something, shared by the Hub Pool page and the setup guide. */
import { ApiError, api, hasDiscovery, noAnswer, POOL, tailnetRead } from './api';
import type { DirectoryReport, DiscoverableHub, PeerView } from './types';

export const SIX_DIGITS = /^\d{6}$/;

/** The PIN field's rule, said plainly (0.3.0 silently dropped a short PIN; this refuses it). */
export function pinProblem(pin: string): string | null {
  const t = pin.trim();
  if (t === '' || SIX_DIGITS.test(t)) return null;
  return 'A PIN is exactly six digits. Leave the field empty to pair without one.';
}

/** The rule for a PIN typed after a Hub refused one: the PIN rule, and never the value it refused. */
export function retryPinProblem(pin: string, refused: string | undefined): string | null {
  if (refused !== undefined && pin.trim() === refused) return 'This is the PIN that Hub refused. Generate a fresh one there.';
  return pinProblem(pin);
}

export type PairOutcome =
  | { readonly sent: true; readonly peer: PeerView | null; readonly pinVerified: boolean }
  | {
      readonly sent: false;
      /**
       * This Hub itself gave no answer (stopped, asleep, cut off from this browser, or slower than
       * the call's bound): nothing was heard from the other Hub, and whether the request went out
       * is not known.
       */
      readonly unanswered: boolean;
      readonly pinRefused: boolean;
      readonly reason: string;
      readonly code: string | null;
      /** What was typed, when it is an address rather than a tailnet name; null otherwise. */
      readonly address: string | null;
    };

/**
 * An IP address, or anything with a port: never a tailnet name, which the Hub stores and dials
 * by name alone. A Hub known only by address is paired from the command line with a PIN.
 */
function asAddress(typed: string): string | null {
  const t = typed.trim();
  // A colon covers a port and every IPv6 form, bracketed or not; what is left is a bare IPv4.
  return t.includes(':') || /^\d{1,3}(\.\d{1,3}){3}$/.test(t) ? t : null;
}

/** A name under ts.net names a device on some tailnet, never a host on the LAN. */
function isMagicDnsName(typed: string): boolean {
  return /\.ts\.net\.?$/i.test(typed.trim());
}

export async function sendPairRequest(nodeFqdn: string, pin: string): Promise<PairOutcome> {
  try {
    const res = await api<{ peer: PeerView | null; pinVerified: boolean }>('POST', `${POOL}/peers/pair`, {
      nodeFqdn,
      ...(pin.trim() === '' ? {} : { pin: pin.trim() }),
    });
    return { sent: true, peer: res.peer, pinVerified: res.pinVerified };
  } catch (err) {
    const e = err instanceof ApiError ? err : null;
    return {
      sent: false,
      unanswered: noAnswer(err),
      pinRefused: e?.code === 'HUB_ERR_PEER_REFUSED_PIN' || e?.code === 'HUB_ERR_PAIR_PIN_REFUSED',
      reason: (err as Error).message,
      code: e?.code ?? null,
      // A LAN name (nas.lan) is refused by this Hub as outside its tailnet: it is paired by address too.
      // A MagicDNS name on another tailnet is refused the same way but is no LAN host: no address path.
      address: asAddress(nodeFqdn) ?? (e?.code === 'HUB_ERR_PAIR_OUTSIDE_TAILNET' && !isMagicDnsName(nodeFqdn) ? nodeFqdn.trim() : null),
    };
  }
}

/** How a request with no "sent" answer is headed: "Not sent", unless this Hub gave no answer, when the page cannot know. */
export const notSentTitle = (o: Extract<PairOutcome, { sent: false }>): string => (o.unanswered ? 'No answer' : 'Not sent');

/** The line under the advice: the Hub's own words, or, when it gave none, what the page knows of its silence. */
export const notSentDetail = (o: Extract<PairOutcome, { sent: false }>): string =>
  o.unanswered ? `${o.reason.charAt(0).toUpperCase()}${o.reason.slice(1)}.` : `The Hub said: ${o.reason}`;

/**
 * After this Hub gave no answer. The request may have gone out: a Hub that had taken the call in
 * before it stalled carries on with it when it wakes, and one that stopped part way may have sent
 * it first. Or it never did: a Hub stopped (SIGSTOP) before it read the call did not send it once
 * resumed after the browser had given up (seen in dashboard-pair-card-refusals). The page cannot
 * tell these apart, and the other Hub was never heard from, so the advice is about this Hub and
 * what to look for once it answers.
 */
const UNANSWERED =
  'This Hub did not answer, so whether the request went out is not known, and the other Hub is not the one to check. Once this Hub answers again, see whether it lists the request as waiting for the other Hub’s approval: if it does, the request went out; if not, send it again.';

/** What to check after a request that was not sent, in the guide's words. */
export function notSentAdvice(o: Extract<PairOutcome, { sent: false }>): string {
  if (o.unanswered) return UNANSWERED;
  if (o.address !== null && !o.pinRefused)
    return `${o.address} is not a name on this tailnet, and this page pairs by tailnet name. Pair by address from a terminal on this Hub, with a PIN made on the other Hub: cihub pool probe ${o.address}, then cihub pool pair ${o.address} --pin <digits>.`;
  if (o.pinRefused)
    return 'The other Hub refused the PIN: it was wrong, expired after ten minutes, already used, or replaced by a newer one. Generate a fresh PIN there and try again.';
  return (
    REFUSED_HERE[o.code ?? ''] ??
    'Could not reach the Hub or was declined. Check that it is online, on this tailnet, published at its name, and has Hub Pool on.'
  );
}

/**
 * Refusals this Hub makes before it dials anyone: telling the operator to check whether the other
 * Hub is online would send them after the wrong machine. The Hub's own sentence follows each.
 */
const REFUSED_HERE: Readonly<Record<string, string>> = {
  HUB_ERR_PAIR_NAME_INVALID:
    'That is not a tailnet name, so nothing was sent. Type the other Hub’s full MagicDNS name, with its tailnet (for example hub-b.example-tailnet.ts.net).',
  HUB_ERR_PAIR_SELF: 'That is this Hub’s own name, so nothing was sent. Type the name of the other Hub.',
  HUB_ERR_POOL_DISABLED: 'Hub Pool is switched off on this Hub, so nothing was sent. Turn it on, then pair.',
  HUB_ERR_PAIR_OUTSIDE_TAILNET:
    'That Hub is on another tailnet, so nothing was sent. Hubs pool only on one tailnet: sign both machines in to the same tailnet, then pair by the name it gives.',
  // Raised here: a request already waiting either way or a pairing held for the name (checked
  // before dialling), an identity key being rotated, or the request cancelled here while it was out.
  HUB_ERR_CONFLICT:
    'This Hub refused the request itself: it already holds a request or pairing for that name, or a change is under way here, so the other Hub is not the one to check. Sending the same request again meets the same refusal; the Hub’s words below say what to do first.',
};

/** Whether sending a request that was not sent again, as it stands, can go differently: not after this Hub's own conflict. */
export function retryable(o: Extract<PairOutcome, { sent: false }>): boolean {
  return o.code !== 'HUB_ERR_CONFLICT';
}

export type Discovery =
  | {
      readonly available: true;
      readonly hubs: readonly DiscoverableHub[];
      readonly notHubs: readonly string[];
      readonly directories: readonly DirectoryReport[];
    }
  | { readonly available: false; readonly why: string };

/** One scan. Never on a timer: each scan probes every unpaired device on the tailnet. */
const NO_DISCOVERY =
  'Discovery is not available on this Hub yet: this version cannot list the Hubs on your tailnet. Type the other Hub’s tailnet name instead (for example hub-b.example-tailnet.ts.net).';

/** A Hub heard on the LAN (mDNS): shown as Unverified, never offered for pairing. */
interface LanRow {
  readonly displayName: string;
  readonly claimedName: string | null;
  readonly address: string;
  readonly port: number | null;
}

function lanHub(r: LanRow): DiscoverableHub {
  const where = r.port === null ? r.address : `${r.address}:${r.port}`;
  return { nodeFqdn: r.claimedName ?? where, displayName: `${r.displayName} (${where})`, unverified: true };
}

/** The name a found Hub is shown by: the short name discovery gives, else its tailnet name's first label. */
export const hubName = (h: DiscoverableHub): string => h.displayName ?? h.nodeFqdn.split('.')[0]!;

/**
 * Order by the name a person reads, then by tailnet name. Sorting by tailnet name alone put
 * "nas-backup.…" before "nas.…" ("-" sorts before "."), so the cards were not in the order of
 * the names they show.
 */
export function byShownName(aShown: string, aFqdn: string, bShown: string, bFqdn: string): number {
  return aShown.localeCompare(bShown) || aFqdn.localeCompare(bFqdn);
}

export async function scanForHubs(): Promise<Discovery> {
  if (!hasDiscovery()) return { available: false, why: NO_DISCOVERY };
  try {
    const res = await tailnetRead<{
      candidates: DiscoverableHub[];
      notHubs: { nodeFqdn: string }[];
      directories: DirectoryReport[];
      lan?: { rows: readonly LanRow[] };
    }>(`${POOL}/peers/discoverable`);
    return {
      available: true,
      hubs: [...res.candidates, ...(res.lan?.rows ?? []).map(lanHub)].sort((a, b) => byShownName(hubName(a), a.nodeFqdn, hubName(b), b.nodeFqdn)),
      notHubs: res.notHubs.map((d) => d.nodeFqdn),
      directories: res.directories,
    };
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return { available: false, why: NO_DISCOVERY };
    return { available: false, why: `The scan failed: ${(err as Error).message}` };
  }
}
