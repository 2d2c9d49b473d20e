import { useNow } from '../hooks';
import type { PoolStatus } from '../types';
import { isPaired } from '../words';
import type { Act } from './act';
import { PeerRow } from './peer-row';
import { POOL_PAGE_POLL_MS } from './polling';
import { Section } from './section';

export function PairedHubs({ s, act }: { s: PoolStatus; act: Act }) {
  const now = useNow();
  const paired = s.peers.filter(isPaired);
  return (
    <Section id="paired" title="Paired Hubs">
      {paired.length === 0 ? (
        <p className="muted">No Hub is paired yet.</p>
      ) : (
        <ul className="plain">
          {paired.map((p) => (
            <PeerRow key={p.id} p={p} act={act} now={now} self={s.localNode.nodeFqdn} outboundOn={s.directions.outbound.enabled} />
          ))}
        </ul>
      )}
      <p className="small muted">
        Refreshes every {POOL_PAGE_POLL_MS / 1000} s. Peers are health-checked every {s.settings.poolHealthPollSeconds} s; three failures in a row mark one
        Unreachable.
      </p>
    </Section>
  );
}
