import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { ApiError, currentSession, signInWithLink, signOut, whenSignedOut } from './api';
import { Dashboard, type GuideStep } from './context';
import { RereadSignal } from './hooks';
import { Home } from './Home';
import { ArrivalsSaid } from './NewRequestsSaid';
import { HubPool } from './hub-pool/page';
import { LogView } from './LogView';
import { Resources } from './Resources';
import { SetupGuide } from './setup-guide/guide';
import { SignIn } from './SignIn';
import { takeSignInLink } from './signin-link';
import type { SessionInfo } from './types';

const PAGES = [
  { hash: '#/', label: 'Home' },
  { hash: '#/pool', label: 'Hub Pool' },
  { hash: '#/resources', label: 'Resources' },
  { hash: '#/logs', label: 'Logs' },
] as const;

/** Taken once, as the module loads: before the first render reads the address, and never twice. */
const linkAtLoad = takeSignInLink();
/** Spent once even when React runs the mount effect twice (StrictMode in development). */
let linkSignIn: Promise<SessionInfo> | null = null;

function useHash(): string {
  const [hash, setHash] = useState(() => window.location.hash || '#/');
  useEffect(() => {
    const on = () => setHash(window.location.hash || '#/');
    window.addEventListener('hashchange', on);
    return () => window.removeEventListener('hashchange', on);
  }, []);
  return hash;
}

export function App() {
  const [session, setSession] = useState<SessionInfo | null | undefined>(undefined);
  const [guide, setGuide] = useState<{ step: GuideStep | null } | null>(null);
  const [signOutFailed, setSignOutFailed] = useState<string | null>(null);
  const [linkRefused, setLinkRefused] = useState<Error | null>(null);
  /** The Hub stopped taking this page's session (it restarted, or the session ran out): sign-in says so. */
  const [sessionEnded, setSessionEnded] = useState(false);
  /** Set by Sign out: a read still on its way then meets the ended session, which is no news to the person who ended it. */
  const signedOutHere = useRef(false);
  /** Moved on when the guide closes, and when a change it began lands after that: the page below reads again at once. */
  const [reread, setReread] = useState(0);
  const guideOpen = useRef(false);
  const hash = useHash();
  /** One for the whole page, so a request to join is said once whichever region said it. */
  const [arrivalsSaid] = useState(() => new Set<string>());

  // The page is cleared only once the Hub has ended the session (or says there was none): a
  // session the Hub still holds stays usable by this browser, so a failure is said, not hidden.
  const leave = async () => {
    setSignOutFailed(null);
    signedOutHere.current = true;
    try {
      await signOut();
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 401)) {
        signedOutHere.current = false;
        setSignOutFailed((err as Error).message);
        return;
      }
    }
    setSession(null);
  };

  useEffect(() => {
    whenSignedOut(() => {
      if (!signedOutHere.current) setSessionEnded(true);
      setSession(null);
    });
    if (linkAtLoad === null) {
      currentSession().then(setSession, () => setSession(null));
      return;
    }
    linkSignIn ??= signInWithLink(linkAtLoad);
    const refused = (err: Error) => {
      setLinkRefused(err);
      setSession(null);
    };
    // A refused link (spent in another tab, say) leaves any session this browser already holds standing.
    linkSignIn.then(setSession, (err: Error) =>
      currentSession().then(
        (held) => (held === null ? refused(err) : setSession(held)),
        () => refused(err),
      ),
    );
  }, []);

  const openGuide = useCallback((step?: GuideStep) => {
    guideOpen.current = true;
    setGuide({ step: step ?? null });
  }, []);
  const closeGuide = useCallback(() => {
    guideOpen.current = false;
    setGuide(null);
    setReread((n) => n + 1);
  }, []);
  // While the guide is open the page below is hidden behind it: closing it reads once for every change made meanwhile.
  const guideChanged = useCallback(() => {
    if (!guideOpen.current) setReread((n) => n + 1);
  }, []);
  const readOnly = session?.role !== 'operator';
  const ctx = useMemo(
    () => ({ role: session?.role ?? 'read', readOnly, guideOpen: guide !== null && !readOnly, openGuide }),
    [session, readOnly, guide, openGuide],
  );

  if (session === undefined)
    return (
      <main aria-busy="true">
        <p className="muted">Loading…</p>
      </main>
    );
  if (session === null)
    return (
      <SignIn
        onSignedIn={(signedIn) => {
          setLinkRefused(null);
          setSessionEnded(false);
          signedOutHere.current = false;
          setSession(signedIn);
        }}
        linkRefused={linkRefused}
        sessionEnded={sessionEnded}
      />
    );

  const page = PAGES.find((p) => p.hash === hash.split('?')[0]) ?? PAGES[0];
  return (
    <Dashboard.Provider value={ctx}>
      <ArrivalsSaid.Provider value={arrivalsSaid}>
        <header className="top" inert={ctx.guideOpen}>
          <h1>Hub Pool</h1>
          <nav className="main" aria-label="Main">
            {PAGES.map((p) => (
              <a key={p.hash} href={p.hash} aria-current={p === page ? 'page' : undefined}>
                {p.label}
              </a>
            ))}
          </nav>
          <span className="spacer" />
          {session.role === 'read' && (
            <span className="badge warn" title="Signed in with a qa:read key: you can look, not change">
              Read-only
            </span>
          )}
          <button type="button" onClick={() => void leave()}>
            Sign out
          </button>
        </header>
        {signOutFailed !== null && (
          <p className="notice bad" role="alert">
            Could not sign out: {signOutFailed}. This browser is still signed in; try again.
          </p>
        )}
        {/* While the guide is open the page behind it takes no focus or clicks: the dialog is modal for keyboards too. */}
        <main inert={ctx.guideOpen}>
          <RereadSignal.Provider value={reread}>
            {page.hash === '#/' && <Home />}
            {page.hash === '#/pool' && <HubPool />}
            {page.hash === '#/resources' && <Resources />}
            {page.hash === '#/logs' && <LogView />}
          </RereadSignal.Provider>
        </main>
        {guide !== null && ctx.guideOpen && <SetupGuide initialStep={guide.step} onClose={closeGuide} onChanged={guideChanged} />}
      </ArrivalsSaid.Provider>
    </Dashboard.Provider>
  );
}
