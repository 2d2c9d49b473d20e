import { useState } from 'react';
import { api, POOL } from '../api';
import { useDashboard } from '../context';
import type { PoolStatus, SettingEntry } from '../types';
import type { Act } from './act';
import { Beside, useBeside } from './beside';
import { Section } from './section';
import { ChangeButton, useWorking, WORKING } from './working';

/** The .env flag that forces each pool switch off (spec, kill switches). */
const ENV_FLAGS: Readonly<Record<string, string>> = {
  poolEnabled: 'HUB_POOL_USER_DISABLED',
  poolOutboundEnabled: 'HUB_POOL_OUTBOUND_DISABLED',
  poolInboundEnabled: 'HUB_POOL_INBOUND_DISABLED',
};

/**
 * The .env flag holding a switch off, from status, which every sign-in reads (the settings
 * catalogue is operator-only and can fail to read). Each direction reports its own flag even
 * while Hub Pool is off and status names the master as what holds it off, so the lock shows
 * to every sign-in in that state too.
 */
function envLock(s: PoolStatus, key: string, catalogued: string | null): string | null {
  switch (key) {
    case 'poolEnabled':
      return s.disabledBy === 'env' ? ENV_FLAGS[key]! : null;
    case 'poolOutboundEnabled':
      return s.directions.outbound.envLocked ? ENV_FLAGS[key]! : null;
    case 'poolInboundEnabled':
      return s.directions.inbound.envLocked ? ENV_FLAGS[key]! : null;
    default:
      return catalogued;
  }
}

const SWITCHES = [
  { key: 'poolEnabled', label: 'Hub Pool' },
  { key: 'poolOutboundEnabled', label: 'Send work to paired Hubs' },
  { key: 'poolInboundEnabled', label: 'Take work from paired Hubs' },
  { key: 'poolLanDiscovery', label: 'Discover Hubs on the LAN (mDNS)' },
] as const;
const NUMBERS = [
  { key: 'poolLocalAffinity', label: 'Local affinity (queued requests)' },
  { key: 'poolHealthPollSeconds', label: 'Health check interval (seconds)' },
  { key: 'poolPrefixAffinityMaxInFlight', label: 'Prefix affinity limit (queued requests; 0 is off)' },
  { key: 'poolPrefixAffinityMargin', label: 'Prefix affinity margin (queued requests)' },
] as const;

export function Controls({
  s,
  catalogue,
  catalogueError,
  act,
}: {
  s: PoolStatus;
  catalogue: readonly SettingEntry[] | null;
  catalogueError: string | null;
  act: Act;
}) {
  const { readOnly } = useDashboard();
  const [draft, setDraft] = useState<Record<string, string>>({});
  const beside = useBeside();
  const working = useWorking();
  const entry = (key: string) => catalogue?.find((e) => e.key === key) ?? null;
  return (
    <Section id="controls" title="Controls">
      {catalogueError !== null && (
        <p className="notice bad" role="alert">
          Could not read the settings catalogue: {catalogueError}.{' '}
          {catalogue === null ? 'The ranges and defaults are not shown.' : 'The ranges and defaults are from the last read.'}
        </p>
      )}
      {SWITCHES.map((sw) => {
        const locked = envLock(s, sw.key, entry(sw.key)?.lockedBy ?? null);
        const on = locked !== null ? false : Boolean(s.settings[sw.key]);
        const id = `switch-${sw.key}`;
        return (
          <div key={sw.key}>
            <div className="switch">
              <input
                id={id}
                type="checkbox"
                role="switch"
                checked={on}
                disabled={readOnly || locked !== null}
                aria-disabled={working.has(sw.key) || undefined}
                aria-describedby={locked !== null ? `${id}-lock` : beside.said(sw.key) !== null ? `${id}-said` : undefined}
                onChange={(ev) => {
                  // Controlled: a press while the change is out leaves the switch as status shows it.
                  if (working.has(sw.key)) return;
                  const to = ev.target.checked;
                  beside.forget(sw.key);
                  void working.run(sw.key, () =>
                    act(() => api('PATCH', `${POOL}/settings`, { [sw.key]: to }), `${sw.label} switched ${to ? 'on' : 'off'}.`, beside.say(sw.key)),
                  );
                }}
              />
              <label htmlFor={id}>{sw.label}</label>
              {working.has(sw.key) && <span className="small muted">{WORKING}</span>}
            </div>
            <Beside id={`${id}-said`} outcome={beside.said(sw.key)} refused="Not switched" testId={`${sw.key}-said`} />
            {locked !== null && (
              <p id={`${id}-lock`} className="small notice warn">
                Disabled in this Hub's .env ({locked}=true). Remove that line and restart the Hub to use this switch.
              </p>
            )}
          </div>
        );
      })}
      <p className="small muted">
        Discover Hubs on the LAN (mDNS) is off by default. Hubs heard that way are listed as Unverified, with no Pair button: anything on the network can
        announce itself as a Hub.
      </p>
      {NUMBERS.map((n) => {
        const id = `num-${n.key}`;
        const value = draft[n.key] ?? String(s.settings[n.key]);
        const e = entry(n.key);
        return (
          <div key={n.key} className="field">
            <label htmlFor={id}>{n.label}</label>
            <div className="row">
              <input
                id={id}
                type="number"
                value={value}
                disabled={readOnly}
                onChange={(ev) => {
                  setDraft({ ...draft, [n.key]: ev.target.value });
                  beside.forget(n.key);
                }}
                aria-invalid={beside.refused(n.key)}
                aria-describedby={beside.said(n.key) !== null ? `${id}-said ${id}-range` : `${id}-range`}
                style={{ width: '8rem' }}
              />
              {!readOnly && (
                // Named with its field: four Saves read as one name four times in a screen reader's list of buttons.
                <ChangeButton
                  working={working.has(n.key)}
                  name={`Save ${n.label}`}
                  disabled={value === String(s.settings[n.key]) || value.trim() === ''}
                  onClick={() => {
                    beside.forget(n.key);
                    const sent = value;
                    const save = () => api('PATCH', `${POOL}/settings`, { [n.key]: Number(sent) });
                    void working.run(n.key, async () => {
                      // The field gives way to the saved value only while it still holds what was sent:
                      // digits typed while the Save was out are the operator's next value, not to be wiped.
                      if (await act(save, `${n.label} saved.`, beside.say(n.key)))
                        setDraft((d) => (d[n.key] === sent ? Object.fromEntries(Object.entries(d).filter(([k]) => k !== n.key)) : d));
                    });
                  }}
                >
                  Save
                </ChangeButton>
              )}
            </div>
            <Beside id={`${id}-said`} outcome={beside.said(n.key)} refused="Not saved" testId={beside.refused(n.key) ? `${n.key}-refused` : `${n.key}-saved`} />
            <span id={`${id}-range`} className="small muted">
              {e !== null ? `${e.range}; default ${String(e.default)}` : ''}
            </span>
            {e?.inert != null && (
              <p className="small notice warn" data-testid={`${n.key}-inert`}>
                {inertText(e.inert)}
              </p>
            )}
          </div>
        );
      })}
      <p className="small muted">Switches apply at once; the number fields need Save. Turning any of them off leaves paired Hubs paired.</p>
    </Section>
  );
}

/** Why a setting's value does nothing now, from the catalogue's typed record. */
function inertText(inert: NonNullable<SettingEntry['inert']>): string {
  const base = `Does nothing while ${inert.because} is ${String(inert.becauseValue)}`;
  return inert.reason === 'prefix-affinity-off' ? `${base}: a margin only widens a prefix affinity limit that is on.` : `${base}.`;
}
