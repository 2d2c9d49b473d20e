/**
 * Finds the peer an operator means: the full id, a unique id prefix (what `cihub pool peers`
 * prints), or the node name.
 */
import { HubError } from '../errors.js';
import type { PeerRow, PeerStore } from '../store/peers.js';
import { normalizePeerName } from '../tailnet/peer-name.js';

/** Shortest id prefix accepted. */
export const MIN_ID_PREFIX = 4;

export function resolvePeer(store: PeerStore, ref: string): PeerRow {
  const exact = store.get(ref);
  if (exact) return exact;
  const name = normalizePeerName(ref);
  if (name.ok) {
    const byName = store.byFqdn(name.name);
    if (byName) return byName;
  }
  if (ref.length >= MIN_ID_PREFIX) {
    const matches = store.list().filter((p) => p.id.startsWith(ref.toLowerCase()));
    if (matches.length === 1) return matches[0]!;
    if (matches.length > 1)
      throw new HubError('HUB_ERR_CONFLICT', `${ref} matches ${matches.length} peers (${matches.map((m) => m.nodeFqdn).join(', ')}); give more of the id`);
  }
  throw new HubError('HUB_ERR_NOT_FOUND', `no peer or pairing request matches ${ref}`);
}
