import { useRef, useState, type ButtonHTMLAttributes } from 'react';

/** What a control reads while its change is out. */
export const WORKING = 'Working…';

/**
 * The changes under way from a set of controls, one per control, by key. A control whose change
 * is out takes no second press: on a slow Hub a second Unpair or Save went out behind the first,
 * the Hub refused it (the first had already done it) or did it twice, and a red refusal took the
 * place of the first one's success.
 */
export interface Working {
  /** Whether the change started for `key` is still out. */
  readonly has: (key: string) => boolean;
  /** Runs `change` for `key`, unless one is out for it already: a press meanwhile sends nothing. */
  readonly run: (key: string, change: () => Promise<unknown>) => Promise<void>;
}

export function useWorking(): Working {
  // Checked and marked at once, not on the next render, so two presses in one frame send one change.
  const out = useRef(new Set<string>());
  const [shown, setShown] = useState<ReadonlySet<string>>(new Set());
  return {
    has: (key) => shown.has(key),
    run: async (key, change) => {
      if (out.current.has(key)) return;
      out.current.add(key);
      setShown(new Set(out.current));
      try {
        await change();
      } finally {
        out.current.delete(key);
        setShown(new Set(out.current));
      }
    },
  };
}

/**
 * A button whose change takes a round trip to the Hub. While the change is out it reads
 * Working… and is marked aria-disabled: not disabled, since a disabled button drops the
 * keyboard's focus to the page. Its name goes on saying what it does, with "working…" after it,
 * so a screen reader still tells the controls apart and the words on screen are in the name.
 * `name` is the accessible name when it says more than the words on the button. A press while
 * the change is out does nothing at all, not even what the control does before sending.
 */
export function ChangeButton({
  working,
  name,
  children,
  onClick,
  ...button
}: Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'aria-label' | 'type' | 'children'> & { working: boolean; name?: string; children: string }) {
  const called = name ?? children;
  return (
    <button
      type="button"
      {...button}
      aria-disabled={working || undefined}
      aria-label={working ? `${called}: ${WORKING.toLowerCase()}` : name}
      onClick={(ev) => {
        if (!working) onClick?.(ev);
      }}
    >
      {working ? WORKING : children}
    </button>
  );
}
