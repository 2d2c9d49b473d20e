import { useEffect, useState } from 'react';

/**
 * A filtered list's count, told to a screen reader when the person changes the filter. The count
 * on screen also moves with every refresh (every 2 s on the Logs page); were it a live region, a
 * screen reader would read it out over and over. So a separate polite region is given the words
 * only after a change of filter, once `words` stands for the new filter (null while it is still
 * being read: a new level or age is read from the Hub again).
 */
export function useSaidOnChange(words: string | null): { said: string; changed(): void } {
  const [waiting, setWaiting] = useState(false);
  const [said, setSaid] = useState('');
  useEffect(() => {
    if (!waiting || words === null) return;
    setSaid(words);
    setWaiting(false);
  }, [waiting, words]);
  return { said, changed: () => setWaiting(true) };
}

/**
 * A polite region for words that nothing else tells a screen reader (what `useSaidOnChange` gives
 * it, or a caller's own): present from the start, since a screen reader only follows a live
 * region it has already seen.
 */
export function SaidOnChange({ said, testId }: { said: string; testId: string }) {
  return (
    <p className="visually-hidden" role="status" data-testid={testId}>
      {said}
    </p>
  );
}
