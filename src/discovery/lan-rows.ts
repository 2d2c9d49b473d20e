/**
 * Turning what a LAN browse heard into discovery rows (guide, "How Hubs find each other"). Pure.
 * Every row is unverified: anything on the network can announce itself as a Hub, so a row offers
 * no pairing, only an address to check with `cihub pool probe` and a PIN. The tailnet's word
 * wins: a row whose claimed name a tailnet directory also names is dropped in favour of that
 * entry, and so are this Hub itself and names it already holds a row for.
 */
import type { LanHeard } from './lan-announcement.js';

/** Rows one scan keeps; announcements past this are counted, not listed. */
export const MAX_LAN_ROWS = 32;

export interface LanHub {
  readonly source: 'mdns';
  /** Always false: nothing vouches for an announcement heard on the LAN, so it is never paired from the list. */
  readonly verified: false;
  /** The claimed MagicDNS name's first label, else the announced host label, else the instance label. */
  readonly displayName: string;
  /** The MagicDNS name it claims; null when it claimed none. A claim only, never stored. */
  readonly claimedName: string | null;
  /** The address the announcement came from. */
  readonly address: string;
  /** The Hub API port it claims; null when it did not say. */
  readonly port: number | null;
}

export interface LanRowsInput {
  readonly heard: readonly LanHeard[];
  /** This Hub's own announcement id (its own answers come back to it). */
  readonly ownId: string;
  readonly selfName: string | null;
  /** Every name a tailnet directory gave this scan, before exclusions. */
  readonly tailnetNames: ReadonlySet<string>;
  /** Names this Hub holds any row for. */
  readonly held: ReadonlySet<string>;
}

export interface LanRowsResult {
  readonly rows: readonly LanHub[];
  /** Announcements dropped because a tailnet directory or a held row already covers that name. */
  readonly coveredByTailnet: number;
  /** Distinct announcements past MAX_LAN_ROWS. */
  readonly notListed: number;
}

export function lanRows(input: LanRowsInput): LanRowsResult {
  const byInstance = new Map<string, LanHeard>();
  // The first answer heard for an instance stands; later repeats (mDNS answers are often sent twice) add nothing.
  for (const h of input.heard) if (!byInstance.has(h.instance)) byInstance.set(h.instance, h);
  const seenNames = new Set<string>();
  const rows: LanHub[] = [];
  let coveredByTailnet = 0;
  let notListed = 0;
  for (const h of byInstance.values()) {
    if (h.id !== null && h.id === input.ownId) continue;
    if (h.claimedName !== null) {
      if (h.claimedName === input.selfName) continue;
      if (input.tailnetNames.has(h.claimedName) || input.held.has(h.claimedName)) {
        coveredByTailnet += 1;
        continue;
      }
      // Two instances claiming one name: the first stands, as for one instance.
      if (seenNames.has(h.claimedName)) continue;
      seenNames.add(h.claimedName);
    }
    if (rows.length >= MAX_LAN_ROWS) {
      notListed += 1;
      continue;
    }
    rows.push({
      source: 'mdns',
      verified: false,
      displayName: h.claimedName?.split('.')[0] ?? h.hostLabel ?? h.instance.split('.')[0]!,
      claimedName: h.claimedName,
      address: h.address,
      port: h.port,
    });
  }
  rows.sort((a, b) => a.displayName.localeCompare(b.displayName) || a.address.localeCompare(b.address));
  return { rows, coveredByTailnet, notListed };
}
