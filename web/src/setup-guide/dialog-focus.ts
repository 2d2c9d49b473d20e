import { useEffect, type RefObject } from 'react';

/** What Tab can land on inside the dialog, in document order. */
const TABBABLE = 'a[href], button, input, select, textarea, summary, [tabindex]:not([tabindex="-1"])';

function tabbable(root: HTMLElement): HTMLElement[] {
  return [...root.querySelectorAll<HTMLElement>(TABBABLE)].filter((el) => !(el as HTMLButtonElement).disabled && el.getClientRects().length > 0);
}

/**
 * Keeps Tab and Shift+Tab cycling inside a modal dialog, since the page behind it is inert to the
 * eye but not to the keyboard; and when the dialog goes, hands focus back to whatever opened it,
 * so a keyboard user is not dropped at the top of the page.
 */
export function useDialogFocus(dialog: RefObject<HTMLElement | null>): void {
  useEffect(() => {
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const onKey = (e: KeyboardEvent) => {
      const root = dialog.current;
      if (e.key !== 'Tab' || root === null) return;
      const stops = tabbable(root);
      const first = stops[0];
      const last = stops[stops.length - 1];
      if (first === undefined || last === undefined) return;
      const at = document.activeElement;
      const outside = !(at instanceof Node) || !root.contains(at);
      if (e.shiftKey && (outside || at === first || at === root.querySelector('[tabindex="-1"]'))) {
        e.preventDefault();
        last.focus();
      } else if (!e.shiftKey && (outside || at === last)) {
        e.preventDefault();
        first.focus();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => {
      window.removeEventListener('keydown', onKey);
      if (opener?.isConnected === true) opener.focus();
    };
  }, [dialog]);
}
