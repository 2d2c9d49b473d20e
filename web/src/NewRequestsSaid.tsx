import { createContext, useContext, useEffect, useRef, useState } from 'react';
import type { PoolStatus } from './types';

/** The names in a sentence a screen reader says when requests to join arrive. */
const arrivalWords = (names: readonly string[]): string =>
  names.length === 1 ? `${names[0]} asks to join your pool.` : `${names.join(', ')} ask to join your pool.`;

/** What was last said, and the requests it told of: each arrival is a request the Hub made anew, with an id of its own. */
interface Arrival {
  readonly text: string;
  readonly ids: string;
}

/**
 * The ids of the requests some region on this page has said, shared by all of them (App gives
 * one set per sign-in): a request the setup guide's region said while the guide was open is
 * still new to the page's own region when the guide closes, and would be said a second time.
 */
export const ArrivalsSaid = createContext<Set<string>>(new Set());

/**
 * A pairing request from another Hub that arrives while the page is open appears on its next
 * status read with nothing moving focus, so a screen reader user never learns of it. This tells
 * them which Hub asks. What was already waiting when the region first read status is on the page
 * for them to find, not news, so only requests it had not seen are said.
 *
 * Each arrival is said, even in the same words as the last: a Hub asking again after its earlier
 * request was approved, rejected or expired makes the same sentence, and a screen reader says
 * nothing when a live region's text is set to what it already holds (React does not even touch
 * the page then). So the words go in a node keyed on the requests' ids: a new request is a new
 * node, which a screen reader reads as an addition.
 *
 * While the setup guide is open there are two of these: the page's, in the page behind the guide,
 * and the guide's own, inside its dialog. The page's cannot be heard then: the page is inert, and
 * an aria-modal dialog makes Chromium and Safari on macOS drop everything outside it from the
 * accessibility tree, so VoiceOver never hears a region placed outside the dialog, even one moved
 * to the document's body to escape the inert page (f28b2ff did that, and it still went unheard).
 * So the page's region is `quiet` while the guide is open and the guide's region says what
 * arrives then: the guide is there to pair, and its Approve step is where the request is
 * answered. A quiet region takes in nothing meanwhile, so once the guide closes it says what
 * arrived while it was open that the guide's region did not (the guide reads status every 3 s
 * only on Approve); what the guide's region said is in ArrivalsSaid and is not said again.
 */
export function NewRequestsSaid({ s, testId, quiet }: { s: PoolStatus | null; testId: string; quiet: boolean }) {
  /** Inbound request ids seen so far; null until the first read has been taken in. */
  const seen = useRef<ReadonlySet<string> | null>(null);
  const saidHere = useContext(ArrivalsSaid);
  const [said, setSaid] = useState<Arrival | null>(null);
  useEffect(() => {
    if (s === null || quiet) return;
    const inbound = s.peers.filter((p) => p.status === 'pending' && p.direction === 'inbound');
    const before = seen.current;
    seen.current = new Set(inbound.map((p) => p.id));
    if (before === null) return;
    const arrived = inbound.filter((p) => !before.has(p.id) && !saidHere.has(p.id));
    if (arrived.length === 0) return;
    for (const p of arrived) saidHere.add(p.id);
    setSaid({ text: arrivalWords(arrived.map((p) => p.nodeFqdn)), ids: arrived.map((p) => p.id).join(' ') });
  }, [s, quiet, saidHere]);
  // Present before anything is said in it: a screen reader only follows a live region it has already seen.
  return (
    <p className="visually-hidden" role="status" data-testid={testId}>
      {said !== null && <span key={said.ids}>{said.text}</span>}
    </p>
  );
}
