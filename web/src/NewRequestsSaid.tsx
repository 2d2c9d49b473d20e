import { useEffect, useRef, useState } from 'react';
import { SaidOnChange } from './SaidOnChange';
import type { PoolStatus } from './types';

/** The names in a sentence a screen reader says when requests to join arrive. */
const arrivalWords = (names: readonly string[]): string =>
  names.length === 1 ? `${names[0]} asks to join your pool.` : `${names.join(', ')} ask to join your pool.`;

/**
 * A pairing request from another Hub that arrives while the page is open appears on its next
 * status read with nothing moving focus, so a screen reader user never learns of it. This tells
 * them which Hub asks. What was already waiting when the page first read status is on the page
 * for them to find, not news, so only requests the page had not seen are said.
 */
export function NewRequestsSaid({ s, testId }: { s: PoolStatus; testId: string }) {
  /** Inbound request ids seen so far; null until the first read has been taken in. */
  const seen = useRef<ReadonlySet<string> | null>(null);
  const [said, setSaid] = useState('');
  useEffect(() => {
    const inbound = s.peers.filter((p) => p.status === 'pending' && p.direction === 'inbound');
    const before = seen.current;
    seen.current = new Set(inbound.map((p) => p.id));
    if (before === null) return;
    const arrived = inbound.filter((p) => !before.has(p.id));
    if (arrived.length > 0) setSaid(arrivalWords(arrived.map((p) => p.nodeFqdn)));
  }, [s]);
  return <SaidOnChange said={said} testId={testId} />;
}
