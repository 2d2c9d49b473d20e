/**
 * The fields of a body that its route does not take, named in a refusal. A caller chooses the
 * names, so the list is cut to a few, each shortened and with anything but printable ASCII
 * replaced: the message stays one short line whatever arrives.
 */
import { echoName } from '../util/echo.js';

const LISTED_FIELDS_MAX = 3;

/** "expiresAt is" or "PIN, code and 2 more are": the subject of "… not taken here". */
export function unknownFieldsSubject(keys: readonly string[]): string {
  const shown = keys.slice(0, LISTED_FIELDS_MAX).map(echoName);
  const more = keys.length - shown.length;
  const list = more > 0 ? `${shown.join(', ')} and ${more} more` : shown.join(', ');
  return `${list} ${keys.length === 1 ? 'is' : 'are'}`;
}
