import { useEffect, useRef, useState, type FormEvent } from 'react';
import { ApiError, signIn } from './api';
import type { SessionInfo } from './types';

/**
 * linkRefused: why the one-time link the page was opened with did not sign it in, if it did not.
 * sessionEnded: the page was signed in until the Hub stopped taking its session.
 */
export function SignIn({ onSignedIn, linkRefused, sessionEnded }: { onSignedIn: (s: SessionInfo) => void; linkRefused: Error | null; sessionEnded: boolean }) {
  const [key, setKey] = useState('');
  const keyField = useRef<HTMLInputElement>(null);
  // The page the person was using went away under them; focus starts where they go on, and the field's description says why.
  useEffect(() => {
    if (sessionEnded) keyField.current?.focus();
  }, [sessionEnded]);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const linkUsed = linkRefused instanceof ApiError && linkRefused.status === 401;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      onSignedIn(await signIn(key));
    } catch (err) {
      setError(err instanceof ApiError ? err.message : `Could not sign in: ${(err as Error).message}`);
    } finally {
      setBusy(false);
    }
  };

  return (
    <main>
      <section className="card" style={{ maxWidth: 520, margin: '2rem auto' }}>
        <h1 style={{ fontSize: '1.3rem', marginTop: 0 }}>Sign in to this Hub</h1>
        {sessionEnded && (
          <p id="signin-ended" className="notice warn" role="status">
            Your session has ended: this Hub restarted, or the session ran out or was closed. Sign in again to go on.
          </p>
        )}
        {linkUsed && (
          <p className="notice warn" role="status">
            That sign-in link was already used or has expired. Run <span className="mono">cihub dashboard</span> for a new one, or sign in with a key.
          </p>
        )}
        {linkRefused !== null && !linkUsed && (
          <p className="notice bad" role="alert">
            Could not sign in with that link: {linkRefused.message}
          </p>
        )}
        <form onSubmit={submit}>
          <div className="field">
            <label htmlFor="signin-key">Operator key or API key</label>
            <input
              ref={keyField}
              id="signin-key"
              type="password"
              autoComplete="current-password"
              value={key}
              onChange={(e) => setKey(e.target.value)}
              aria-describedby={sessionEnded ? 'signin-ended signin-help' : 'signin-help'}
              required
            />
            <span id="signin-help" className="small muted">
              The operator key is the line in <span className="mono">operator.key</span> in the Hub's data folder. A <span className="mono">qa:read</span> key
              signs you in read-only. Or run <span className="mono">cihub dashboard</span> on the Hub for a one-time link.
            </span>
          </div>
          {error !== null && (
            <p className="notice bad" role="alert">
              {error}
            </p>
          )}
          <button type="submit" className="primary" disabled={busy || key.trim() === ''}>
            Sign in
          </button>
        </form>
      </section>
    </main>
  );
}
