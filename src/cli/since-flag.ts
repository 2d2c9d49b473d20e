/** How `cihub pool log` and `cihub logs` refuse a --since value, in the same words. */
import { parseSince, type SinceProblem } from '../routing-log/since.js';

/**
 * The refusal of a --since value (`pool log` and `logs` alike). The API's sentence tells a caller to send an
 * offset's + as %2B in its query string; here the CLI builds the query, so that advice would
 * be wrong, and a + typed as a space is the one mistake left to name.
 */
export function sinceFlagRefusal(raw: string, problem: SinceProblem): string {
  const shown = JSON.stringify(raw.slice(0, 40));
  const zoneRule = '--since needs a time zone: Z or an offset such as +01:00';
  switch (problem) {
    case 'plus_as_space':
      return `${zoneRule}; ${shown} has a space where its offset's + goes (give ${raw.replace(/ (\d{2}:?\d{2})$/, '+$1')}).`;
    case 'no_zone':
      return `${zoneRule}; ${shown} has none (2026-11-30T12:00:00Z, say).`;
    case 'not_iso':
      return `--since takes an age such as 30s, 10m, 2h or 1d, or an ISO 8601 time with a zone, such as 2026-11-30T12:00:00Z or 2026-11-30T13:00:00+01:00, not ${shown}.`;
    case 'not_real':
      return `--since ${shown} is not a real time.`;
    case 'out_of_range':
      return `--since ${shown} is out of range.`;
  }
}

/** The refusal of a --since value that is neither an age nor a time the routing log's parser reads. */
export function sinceRefusalOf(raw: string): string {
  const parsed = parseSince(raw.trim());
  return sinceFlagRefusal(raw, parsed.ok ? 'not_iso' : parsed.problem);
}
