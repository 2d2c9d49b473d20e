import { useLayoutEffect, useRef, useState, type ReactNode } from 'react';

/**
 * A table that may be wider than the screen scrolls sideways in its own box. While it is wider,
 * the box takes focus, so someone without a mouse can reach it with Tab and scroll it with the
 * arrow keys; the label is what a screen reader announces on arriving there. A table that fits
 * is no Tab stop: there is nothing to scroll, and a stop that does nothing only lengthens the way
 * through the page.
 */
export function TableWrap({ label, children }: { label: string; children: ReactNode }) {
  const box = useRef<HTMLDivElement>(null);
  const overflows = useOverflowsSideways(box);
  return (
    <div ref={box} className="table-wrap" role="region" aria-label={label} tabIndex={overflows ? 0 : undefined}>
      {children}
    </div>
  );
}

/**
 * Whether the box's content is wider than the box, kept true to the window's width and to the
 * rows the table gains or loses: the box and what it holds are watched for size changes, again
 * after every render, as a render may put a new table in the box.
 */
function useOverflowsSideways(box: { readonly current: HTMLElement | null }): boolean {
  const [overflows, setOverflows] = useState(false);
  useLayoutEffect(() => {
    const el = box.current;
    if (el === null) return;
    const measure = () => setOverflows(el.scrollWidth > el.clientWidth);
    measure();
    const watch = new ResizeObserver(measure);
    watch.observe(el);
    for (const child of el.children) watch.observe(child);
    return () => watch.disconnect();
  });
  return overflows;
}
