/**
 * The fields of a body that its route does not take, named in a refusal. A caller chooses the
 * names, so the list is cut to a few, each shortened and with anything but printable ASCII
 * replaced: the message stays one short line whatever arrives.
 */
const LISTED_FIELDS_MAX = 3;
const FIELD_ECHO_MAX_CHARS = 40;

/** "expiresAt is" or "PIN, code and 2 more are": the subject of "… not taken here". */
export function unknownFieldsSubject(keys: readonly string[]): string {
  const shown = keys.slice(0, LISTED_FIELDS_MAX).map((k) => k.replace(/[^\x21-\x7e]/g, '?').slice(0, FIELD_ECHO_MAX_CHARS));
  const more = keys.length - shown.length;
  const list = more > 0 ? `${shown.join(', ')} and ${more} more` : shown.join(', ');
  return `${list} ${keys.length === 1 ? 'is' : 'are'}`;
}
