import { useState } from 'react';
import { useNow } from '../hooks';
import type { PoolStatus } from '../types';
import { isPaired } from '../words';
import type { Act } from './act';
import { Beside } from './beside';
import { PeerRow, type RowOutcome } from './peer-row';
import { POOL_PAGE_POLL_MS } from './polling';
import { Section } from './section';

export function PairedHubs({ s, act }: { s: PoolStatus; act: Act }) {
  const now = useNow();
  const paired = s.peers.filter(isPaired);
  // The last row action's outcome is said in its row; once the row is gone (unpaired), where the row stood.
  const [said, setSaid] = useState<RowOutcome | null>(null);
  const gone = said !== null && !paired.some((p) => p.id === said.peerId) ? said : null;
  const goneNote = gone === null ? null : <Beside id="paired-said" outcome={gone.outcome} refused={gone.refused} testId="paired-said" />;
  const rows = paired.map((p, at) => (
    <PeerRow
      key={p.id}
      p={p}
      act={act}
      now={now}
      self={s.localNode.nodeFqdn}
      outboundOn={s.directions.outbound.enabled}
      said={said?.peerId === p.id ? said : null}
      say={(refused) => (outcome) => setSaid({ peerId: p.id, at, refused, outcome })}
    />
  ));
  if (gone !== null) rows.splice(Math.min(gone.at, rows.length), 0, <li key="paired-said">{goneNote}</li>);
  return (
    <Section id="paired" title="Paired Hubs">
      {paired.length === 0 ? (
        <>
          {goneNote}
          <p className="muted">No Hub is paired yet.</p>
        </>
      ) : (
        <ul className="plain">{rows}</ul>
      )}
      <p className="small muted">
        Refreshes every {POOL_PAGE_POLL_MS / 1000} s. Peers are health-checked every {s.settings.poolHealthPollSeconds} s; three failures in a row mark one
        Unreachable.
      </p>
    </Section>
  );
}
