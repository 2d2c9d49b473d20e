/**
 * The words a peer gave for refusing a pairing request, as this Hub may repeat them: in the
 * error the operator's pair call answers, which the CLI and the dashboard print, and in the
 * log line that records the refusal. The peer is untrusted, so its text is bounded, and every
 * control character in it (newlines included) becomes a space: a reason like "no.\n\nApproved
 * hub-x" would otherwise print a line of its own that reads as this Hub's.
 */

/**
 * Longest refusal text kept from a peer's answer: 400 characters. A Hub's own refusals, which
 * name a command with both Hubs' names, fit.
 */
export const PEER_REFUSAL_MAX_CHARS = 400;

/**
 * C0 and C1 controls, DEL, and the invisible direction and line-separator marks that the CLI
 * also refuses to print raw (src/cli/output.ts), so the reason reads the same everywhere.
 */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]+/g;

/** The peer's reason made fit to repeat; null when it gave none (no string, or nothing printable). */
export function peerRefusalReason(said: unknown): string | null {
  if (typeof said !== 'string') return null;
  const reason = said.slice(0, PEER_REFUSAL_MAX_CHARS).replace(CONTROL, ' ').trim();
  return reason === '' ? null : reason;
}

/**
 * How this Hub repeats a refusal: the far Hub's reason in quotes, as its own words. A Hub writes its
 * refusals about itself ("Hub Pool is switched off on this Hub"), and repeated bare on the
 * requester's screen that "this Hub" reads as the operator's own.
 */
export function declinedBecause(who: string, status: number, said: unknown): string {
  const reason = peerRefusalReason(said);
  return `${who} declined the pairing request (HTTP ${status}); ${reason === null ? 'it gave no reason' : `in its own words: "${reason}"`}`;
}
