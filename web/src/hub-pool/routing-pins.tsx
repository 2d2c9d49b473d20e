import { useState } from 'react';
import { api, POOL } from '../api';
import { useDashboard } from '../context';
import type { PoolStatus } from '../types';
import { isPaired } from '../words';
import type { Act, Flash } from './act';
import { Beside, useBeside } from './beside';
import { Section } from './section';
import { ChangeButton, useWorking } from './working';

const REMOVE_REFUSED = 'Pin not removed';

/** What the last Remove came to, for which pin, and where that pin's row stood in the list. */
interface PinRemoval {
  readonly key: string;
  readonly at: number;
  readonly outcome: Flash;
}

const pinKey = (p: PoolStatus['pins'][number]) => `${p.scope}:${p.model ?? ''}`;

export function RoutingPins({ s, act }: { s: PoolStatus; act: Act }) {
  const { readOnly } = useDashboard();
  const [model, setModel] = useState('');
  const [target, setTarget] = useState('local');
  const beside = useBeside();
  const working = useWorking();
  const said = beside.said('add') !== null ? 'pin-said' : undefined;
  const targets = ['local', ...s.peers.filter(isPaired).map((p) => p.nodeFqdn)];
  // The last Remove's outcome is said in its pin's row; once the pin is gone, where its row stood.
  const [removal, setRemoval] = useState<PinRemoval | null>(null);
  const gone = removal !== null && !s.pins.some((p) => pinKey(p) === removal.key) ? removal : null;
  const goneNote = gone === null ? null : <Beside id="pin-removed-said" outcome={gone.outcome} refused={REMOVE_REFUSED} testId="pin-removed-said" />;
  const rows = s.pins.map((p, at) => {
    const key = pinKey(p);
    const mine = removal?.key === key ? removal : null;
    const saidId = `pin-row-said-${at}`;
    return (
      <li key={key}>
        <div className="row">
          <span>{p.scope === 'default' ? 'Every model' : <span className="mono">{p.model}</span>}</span>
          <span>→ {p.targetNode}</span>
          <span className={`badge ${p.targetAvailable ? 'good' : 'warn'}`}>
            {p.targetAvailable ? 'Target available' : 'Target not available now: the pin is idle'}
          </span>
          {!readOnly && (
            <ChangeButton
              working={working.has(`remove ${key}`)}
              name={p.scope === 'default' ? 'Remove the pin for every model' : `Remove the pin for ${p.model ?? ''}`}
              aria-describedby={mine !== null ? saidId : undefined}
              onClick={() => {
                beside.forget('add');
                void working.run(`remove ${key}`, () =>
                  act(
                    () => api('DELETE', `${POOL}/pins?scope=${p.scope}${p.scope === 'model' ? `&model=${encodeURIComponent(p.model ?? '')}` : ''}`),
                    'Pin removed.',
                    (outcome) => setRemoval({ key, at, outcome }),
                  ),
                );
              }}
            >
              Remove
            </ChangeButton>
          )}
        </div>
        {mine !== null && <Beside id={saidId} outcome={mine.outcome} refused={REMOVE_REFUSED} testId="pin-removed-said" />}
      </li>
    );
  });
  if (gone !== null) rows.splice(Math.min(gone.at, rows.length), 0, <li key="pin-removed-said">{goneNote}</li>);
  return (
    <Section id="pins" title="Routing pins">
      <p className="small muted">A pin moves a node to the front for a model when it can serve it; it never rules the others out.</p>
      {s.pins.length === 0 ? (
        <>
          {goneNote}
          <p className="muted">No pins.</p>
        </>
      ) : (
        <ul className="plain">{rows}</ul>
      )}
      {!readOnly && (
        <div className="row" style={{ marginTop: '0.5rem', alignItems: 'flex-end' }}>
          <div className="field">
            <label htmlFor="pin-model">Model (empty: every model)</label>
            <input
              id="pin-model"
              type="text"
              className="mono"
              value={model}
              onChange={(e) => {
                setModel(e.target.value);
                beside.forget('add');
              }}
              list="pool-models"
              aria-invalid={beside.refused('add')}
              aria-describedby={said}
            />
            <datalist id="pool-models">
              {s.models.map((m) => (
                <option key={m.model} value={m.model} />
              ))}
            </datalist>
          </div>
          <div className="field">
            <label htmlFor="pin-target">Prefer</label>
            <select
              id="pin-target"
              value={target}
              onChange={(e) => {
                setTarget(e.target.value);
                beside.forget('add');
              }}
            >
              {targets.map((t) => (
                <option key={t} value={t}>
                  {t === 'local' ? 'This Hub (local)' : t}
                </option>
              ))}
            </select>
          </div>
          <ChangeButton
            working={working.has('add')}
            className="field"
            aria-describedby={said}
            onClick={() => {
              beside.forget('add');
              setRemoval(null);
              void working.run('add', () =>
                act(
                  () => api('POST', `${POOL}/pins`, model.trim() === '' ? { scope: 'default', target } : { scope: 'model', model: model.trim(), target }),
                  'Pin saved.',
                  beside.say('add'),
                ),
              );
            }}
          >
            Add pin
          </ChangeButton>
        </div>
      )}
      <Beside id="pin-said" outcome={beside.said('add')} refused="Pin not added" testId="pin-said" />
    </Section>
  );
}
