import { useState } from 'react';
import { checksOf, type ReportRead } from '../checks';
import type { PoolStatus } from '../types';

export function CheckStep({
  status,
  report,
  reload,
  changed,
  onContinue,
}: {
  status: PoolStatus;
  report: ReportRead;
  reload: () => Promise<unknown>;
  /** A fix was answered: the page below reads again. */
  changed: () => void;
  onContinue: () => void;
}) {
  const checks = checksOf(status, report);
  const blocked = checks.some((c) => c.level === 'Needs action');
  const warned = checks.some((c) => c.level === 'Warning');
  const [busy, setBusy] = useState(false);
  const [fixFailed, setFixFailed] = useState<string | null>(null);
  return (
    <section aria-labelledby="check-title">
      <h3 id="check-title">Check</h3>
      {fixFailed !== null && (
        <p className="notice bad" role="alert">
          {fixFailed}
        </p>
      )}
      <ul className="plain">
        {checks.map((c) => (
          <li key={c.name} data-testid="check">
            <div className="row">
              <strong>{c.name}</strong>
              <span className={`badge ${c.level === 'Ready' ? 'good' : c.level === 'Warning' ? 'warn' : 'bad'}`}>{c.level}</span>
            </div>
            <p className="small">{c.say}</p>
            {c.command !== undefined && <p className="mono small">{c.command}</p>}
            {c.fix !== undefined &&
              ('href' in c.fix ? (
                <a className="button" href={c.fix.href} target="_blank" rel="noreferrer">
                  {c.fix.label}
                </a>
              ) : (
                <button
                  type="button"
                  disabled={busy}
                  onClick={async () => {
                    const label = c.fix!.label;
                    setBusy(true);
                    setFixFailed(null);
                    try {
                      await (c.fix as { run: () => Promise<unknown> }).run();
                    } catch (err) {
                      setFixFailed(`${label} did not work: ${(err as Error).message}`);
                    } finally {
                      changed();
                      await reload();
                      setBusy(false);
                    }
                  }}
                >
                  {c.fix.label}
                </button>
              ))}
          </li>
        ))}
      </ul>
      <div className="row">
        <button type="button" onClick={() => void reload()}>
          Check again
        </button>
        <button type="button" className="primary" disabled={blocked} onClick={onContinue}>
          {warned && !blocked ? 'Continue anyway' : 'Continue'}
        </button>
      </div>
    </section>
  );
}
