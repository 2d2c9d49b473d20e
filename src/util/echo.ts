/**
 * How a refusal quotes what a caller sent. The caller chooses the text, so a quote is cut short
 * and a name loses anything but printable ASCII: a refusal stays one short line whatever arrives
 * (a 200 KB settings key came back three times in a 600 KB answer before this).
 */

/** Longest a field name is quoted. */
export const NAME_ECHO_MAX_CHARS = 40;
/** Longest a value is quoted (as JSON): a hand-written pin list can run to pages. */
export const VALUE_ECHO_MAX_CHARS = 80;

/** A field name as a refusal names it: printable ASCII, at most NAME_ECHO_MAX_CHARS. */
export function echoName(name: string): string {
  return name.replace(/[^\x21-\x7e]/g, '?').slice(0, NAME_ECHO_MAX_CHARS);
}

/**
 * A value as a refusal quotes it: its JSON, cut to VALUE_ECHO_MAX_CHARS with "..." after. A number
 * JSON cannot write is quoted as itself: 1e400 parses to Infinity, which JSON.stringify writes
 * as null, and "got null" contradicted the rule's own "or null".
 */
export function echoValue(value: unknown): string {
  const text = typeof value === 'number' && !Number.isFinite(value) ? String(value) : (JSON.stringify(value) ?? String(value));
  return text.length > VALUE_ECHO_MAX_CHARS ? `${text.slice(0, VALUE_ECHO_MAX_CHARS)}...` : text;
}

/** Why a field that must be text is not: "is missing" when absent (or null), else what it got instead. */
export function notText(field: string, value: unknown): string {
  return value === undefined || value === null ? `${field} is missing` : `${field} must be a string; got ${echoValue(value)}`;
}
