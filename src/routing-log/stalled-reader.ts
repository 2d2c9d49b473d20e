/**
 * The reason a row gives when this Hub closed a caller that stopped reading its answer
 * (proxy/app-stall.ts), and the reading of it back. The row stays clientClosed: the caller's
 * silence ended it, not routing. Its reason says the Hub did the closing, since "the caller
 * closed its connection" was not true of a reader the Hub cut. The Hub writes the phrase and
 * `cihub pool log` reads it back, so both use this one file; the dashboard cannot import it and
 * keeps the same pattern (web/src/words.ts, stoppedReadingMs).
 */

/** A fixed phrase around the stall time: no body text, no engine text. */
export function stoppedReadingReason(stalledMs: number): string {
  return `the caller stopped reading for ${stalledMs} ms`;
}

const STOPPED_READING = /^the caller stopped reading for (\d+) ms$/;

/** How long the caller had stopped reading when the Hub closed it; null for any other reason. */
export function stoppedReadingMs(reason: string | null): number | null {
  const match = reason === null ? null : STOPPED_READING.exec(reason);
  return match ? Number(match[1]) : null;
}
