import { useEffect, useRef, useState } from 'react';
import { createPortal } from 'react-dom';
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
 * A pairing request from another Hub that arrives while the page is open appears on its next
 * status read with nothing moving focus, so a screen reader user never learns of it. This tells
 * them which Hub asks. What was already waiting when the page first read status is on the page
 * for them to find, not news, so only requests the page had not seen are said.
 *
 * Each arrival is said, even in the same words as the last: a Hub asking again after its earlier
 * request was approved, rejected or expired makes the same sentence, and a screen reader says
 * nothing when a live region's text is set to what it already holds (React does not even touch
 * the page then). So the words go in a node keyed on the requests' ids: a new request is a new
 * node, which a screen reader reads as an addition.
 *
 * The region is placed outside the page (in the document's body) rather than where it is drawn.
 * While the setup guide is open the page behind it is inert, and an inert live region is hidden
 * from screen readers: a request that arrived then was never said, not even once the guide closed.
 * It is said when it arrives, guide open or not, since that is when someone in the guide wants it:
 * the guide is there to pair, its Approve step is where they would answer the request, and a
 * person watching the screen sees the request turn up there within seconds. Holding it until the
 * guide closes would tell a screen reader user last what everyone else saw first.
 */
export function NewRequestsSaid({ s, testId }: { s: PoolStatus; testId: string }) {
  /** Inbound request ids seen so far; null until the first read has been taken in. */
  const seen = useRef<ReadonlySet<string> | null>(null);
  const [said, setSaid] = useState<Arrival | null>(null);
  useEffect(() => {
    const inbound = s.peers.filter((p) => p.status === 'pending' && p.direction === 'inbound');
    const before = seen.current;
    seen.current = new Set(inbound.map((p) => p.id));
    if (before === null) return;
    const arrived = inbound.filter((p) => !before.has(p.id));
    if (arrived.length > 0) setSaid({ text: arrivalWords(arrived.map((p) => p.nodeFqdn)), ids: arrived.map((p) => p.id).join(' ') });
  }, [s]);
  // Present from the page's first status read, before anything is said in it: a screen reader only follows a live region it has already seen.
  return createPortal(
    <p className="visually-hidden" role="status" data-testid={testId}>
      {said !== null && <span key={said.ids}>{said.text}</span>}
    </p>,
    document.body,
  );
}
