/**
 * What a page shows in place of itself when its first read failed: which read, the Hub's answer,
 * and that it is tried again. A later failure is said above the last figures read, in the same style.
 */
export function FirstReadFailed({ what, error, everyMs }: { what: string; error: string; everyMs: number }) {
  return (
    <p className="notice bad" role="alert">
      Could not read {what}: {error}. This page shows nothing until that read succeeds; it is tried again every {everyMs / 1000} s.
    </p>
  );
}
