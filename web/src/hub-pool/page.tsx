import { useState } from 'react';
import { api, noAnswer, POOL } from '../api';
import { useDashboard } from '../context';
import { readTailscaleReport } from '../checks';
import { FirstReadFailed } from '../FirstReadFailed';
import { usePoll } from '../hooks';
import type { PoolStatus, SettingEntry } from '../types';
import { isPaired, poolBadge } from '../words';
import type { Act, Flash } from './act';
import { ContextCaps } from './context-caps';
import { Controls } from './controls';
import { DiscoverableDevices } from './discoverable-devices';
import { PairedHubs } from './paired-hubs';
import { PairingPin } from './pairing-pin';
import { PendingRequests } from './pending-requests';
import { POOL_PAGE_POLL_MS, TAILSCALE_REPORT_POLL_MS } from './polling';
import { PoolModels } from './pool-models';
import { RecentRouting } from './recent-routing';
import { RoutingPins } from './routing-pins';
import { ThisNode } from './this-node';

export function HubPool() {
  const { readOnly, openGuide } = useDashboard();
  const status = usePoll(() => api<PoolStatus>('GET', `${POOL}/status`), POOL_PAGE_POLL_MS);
  const catalogue = usePoll(() => api<{ settings: SettingEntry[] }>('GET', `${POOL}/settings/catalogue`), POOL_PAGE_POLL_MS, !readOnly);
  // Operator only: a qa:read key reads status and the routing log, not the Tailscale report.
  const tailscale = usePoll(readTailscaleReport, TAILSCALE_REPORT_POLL_MS, !readOnly);
  // Typed under Pairing PIN, and sent by both that section's Pair and Discoverable devices' Pair.
  const [otherPin, setOtherPin] = useState('');
  const s = status.data;

  const act: Act = async (run, done, say) => {
    let outcome: Flash;
    let ok: boolean;
    let unanswered = false;
    try {
      const result = await run();
      outcome = typeof done === 'string' ? { tone: 'good', text: done } : done(result);
      ok = true;
    } catch (err) {
      outcome = { tone: 'bad', text: (err as Error).message, notDone: true };
      ok = false;
      unanswered = noAnswer(err);
    }
    // The message waits for the state it reports: a switch said "switched off" while it still
    // showed on until the status came back, and a second click then switched it off again (a CI
    // run of the dashboard-controls browser test caught it under load). Not when the Hub gave no
    // answer: the read would wait out its own bound too, holding back what there is to say.
    const reread = Promise.all([status.refresh(), readOnly ? null : catalogue.refresh()]);
    if (!unanswered) await reread;
    say(outcome);
    return ok;
  };

  if (s === null)
    return status.error === null ? (
      <p className="muted">Loading…</p>
    ) : (
      <FirstReadFailed what="this Hub's pool status" error={status.error} everyMs={POOL_PAGE_POLL_MS} />
    );
  const badge = poolBadge(s);
  const paired = s.peers.filter(isPaired);
  const envOff = s.disabledBy === 'env';

  return (
    <>
      <section className="card" aria-labelledby="pool-title">
        <div className="row">
          <h2 id="pool-title" style={{ margin: 0 }}>
            Hub Pool
          </h2>
          <span className={`badge ${badge.tone}`} data-testid="pool-badge">
            {badge.text}
          </span>
        </div>
        <p className="small muted">{badge.detail}</p>
        {!readOnly && !envOff && (
          <div className="notice">
            {paired.length === 0 ? (
              <div className="row">
                <span>Pair this Hub with another Hub you own.</span>
                <button type="button" className="primary" onClick={() => openGuide()}>
                  Set up Hub Pool
                </button>
              </div>
            ) : (
              <button type="button" onClick={() => openGuide('find')}>
                Add Hubs
              </button>
            )}
          </div>
        )}
        {/* Said as an alert, and dated: the badge and every figure below stay as last read, and with the Hub gone they read as current. */}
        {status.error !== null && (
          <p className="notice bad" role="alert">
            Could not refresh: {status.error}. The status shown is from the last read
            {status.receivedAt === null ? '' : `, at ${new Date(status.receivedAt).toLocaleTimeString()}`}; it is tried again every {POOL_PAGE_POLL_MS / 1000}{' '}
            s.
          </p>
        )}
      </section>

      <div className="grid2">
        <ThisNode s={s} tailscale={tailscale.data} />
        <PairingPin s={s} receivedAt={status.receivedAt} act={act} refresh={status.refresh} otherPin={otherPin} setOtherPin={setOtherPin} />
      </div>
      <DiscoverableDevices s={s} refresh={status.refresh} otherPin={otherPin} setOtherPin={setOtherPin} />
      <PendingRequests s={s} act={act} />
      <PairedHubs s={s} act={act} />
      <div className="grid2">
        <Controls s={s} catalogue={catalogue.data?.settings ?? null} catalogueError={readOnly ? null : catalogue.error} act={act} />
        <RoutingPins s={s} act={act} />
      </div>
      <div className="grid2">
        <PoolModels s={s} />
        <ContextCaps s={s} />
      </div>
      <RecentRouting />
    </>
  );
}
