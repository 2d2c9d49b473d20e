import { useEffect, useRef, useState } from 'react';
import type { Flash, Say } from './act';

/**
 * How a change went, said under the control that made it. The page's own message sits at its
 * top, out of sight of someone working further down (a refused Save or Add pin, or Disable on
 * the tenth peer row, otherwise seemed to do nothing), so a control that has a place of its own
 * says its outcome there instead. `refused` leads the text of a change that did not happen,
 * unless that text already says so itself (a pairing request's "Not sent.").
 */
export function Beside({ id, outcome, refused, testId }: { id: string; outcome: Flash; refused?: string; testId?: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const note = box.current;
    if (note === null) return;
    // Under a control near the bottom of the window the message would land just out of sight.
    note.scrollIntoView({ block: 'nearest' });
    // The control that was used can be gone (Unpair removes its row), leaving a keyboard user's
    // focus on the page itself, back at its start: it goes to the message in the control's place.
    if (document.activeElement === null || document.activeElement === document.body) note.focus();
  }, [outcome]);
  if (outcome === null) return null;
  return (
    <div ref={box} id={id} tabIndex={-1} className={`small notice ${outcome.tone}`} role={outcome.tone === 'bad' ? 'alert' : 'status'} data-testid={testId}>
      {outcome.notDone === true && refused !== undefined ? `${refused}: ${outcome.text}` : outcome.text}
      {outcome.detail !== undefined && <div>{outcome.detail}</div>}
    </div>
  );
}

/** The outcomes said beside a set of controls, by key: one per control, until it is used or edited again. */
export function useBeside() {
  const [said, setSaid] = useState<Readonly<Record<string, Flash>>>({});
  const forget = (key: string) => setSaid((all) => Object.fromEntries(Object.entries(all).filter(([k]) => k !== key)));
  return {
    said: (key: string): Flash => said[key] ?? null,
    refused: (key: string): boolean => said[key]?.tone === 'bad',
    say:
      (key: string): Say =>
      (outcome) =>
        setSaid((all) => ({ ...all, [key]: outcome })),
    forget,
  };
}
