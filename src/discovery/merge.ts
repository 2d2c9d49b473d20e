/**
 * Folding the directories' answers into one list of names to probe (spec, "Where pairing
 * candidates come from"). Pure. Entries fold on the normalised MagicDNS name, never on anything
 * a far side claims; a tailnet entry wins over a Portal one because its name is what the
 * transport dials, and the daemon's own entry wins over the Admin API's, which only fills in
 * what the daemon left out. Paired names and this node are dropped before anything is probed.
 */
import { belongsToTailnet } from '../tailnet/peer-name.js';
import type { TailnetDevice } from '../tailnet/tailscale-status.js';

export type DirectoryName = 'tailscale-daemon' | 'tailscale-admin-api' | 'portal';

export interface MergedCandidate extends TailnetDevice {
  /** 'portal' when only the Portal directory named it; absent means a tailnet directory did. */
  readonly source?: 'portal';
}

export interface MergeInput {
  readonly daemon: readonly TailnetDevice[];
  readonly adminApi: readonly TailnetDevice[];
  readonly portal: readonly TailnetDevice[];
  /** Names this Hub holds any row for (paired, pending either way). */
  readonly paired: ReadonlySet<string>;
  readonly selfName: string | null;
  /** This Hub's tailnet: a name outside it can never pair, so it is not offered. Null: not known. */
  readonly tailnetSuffix: string | null;
}

export interface MergeResult {
  readonly candidates: readonly MergedCandidate[];
  /** How many named entries were dropped as already paired or pending. */
  readonly excludedPaired: number;
}

function fill(winner: MergedCandidate, other: TailnetDevice, idOnly: boolean): MergedCandidate {
  // A Portal row lends only its device id (a display value); what the tailnet says stands.
  if (idOnly) return { ...winner, deviceId: winner.deviceId ?? other.deviceId };
  return {
    ...winner,
    hostName: winner.hostName ?? other.hostName,
    os: winner.os ?? other.os,
    online: winner.online ?? other.online,
    deviceId: winner.deviceId ?? other.deviceId,
  };
}

export function mergeCandidates(input: MergeInput): MergeResult {
  const byName = new Map<string, MergedCandidate>();
  const add = (device: TailnetDevice, source: 'portal' | null) => {
    const existing = byName.get(device.nodeFqdn);
    if (existing === undefined) byName.set(device.nodeFqdn, source === null ? { ...device } : { ...device, source });
    else byName.set(device.nodeFqdn, fill(existing, device, source === 'portal'));
  };
  // Order is precedence: the first directory to name a node supplies its entry.
  for (const d of input.daemon) add(d, null);
  for (const d of input.adminApi) add(d, null);
  for (const d of input.portal) add(d, 'portal');
  let excludedPaired = 0;
  const candidates: MergedCandidate[] = [];
  for (const c of byName.values()) {
    if (c.nodeFqdn === input.selfName) continue;
    if (!belongsToTailnet(c.nodeFqdn, input.tailnetSuffix)) continue;
    if (input.paired.has(c.nodeFqdn)) {
      excludedPaired += 1;
      continue;
    }
    candidates.push(c);
  }
  candidates.sort((a, b) => a.nodeFqdn.localeCompare(b.nodeFqdn));
  return { candidates, excludedPaired };
}
