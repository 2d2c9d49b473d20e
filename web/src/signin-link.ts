/**
 * The one-time link `cihub dashboard` prints lands here as `/#signin-link=<token>`: the Hub's
 * landing spends nothing, and a fragment reaches no server and no Referer. The token is taken
 * out of the address bar before anything renders, so it is not left in history, a bookmark or a
 * screenshot; the page then spends it with a sign-in POST.
 */
const FRAGMENT_PREFIX = '#signin-link=';

/** The link token the page was opened with, removed from the address; null when there was none. */
export function takeSignInLink(): string | null {
  const { hash, pathname, search } = window.location;
  if (!hash.startsWith(FRAGMENT_PREFIX)) return null;
  window.history.replaceState(null, '', `${pathname}${search}`);
  try {
    return decodeURIComponent(hash.slice(FRAGMENT_PREFIX.length));
  } catch {
    // A mangled link (a % cut off when copied) is still worth the Hub's "used or expired" answer.
    return hash.slice(FRAGMENT_PREFIX.length);
  }
}
