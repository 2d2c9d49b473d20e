import type { ReactNode } from 'react';

/**
 * A table that may be wider than the screen scrolls sideways in its own box. The box takes
 * focus, so someone without a mouse can reach it with Tab and scroll it with the arrow keys;
 * the label is what a screen reader announces on arriving there.
 */
export function TableWrap({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="table-wrap" role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}
