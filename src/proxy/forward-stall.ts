/**
 * How long a peer serving a forward waits on a reader that takes nothing (app-stall.ts). That
 * reader is the sending Hub, whose own app has stopped reading: the bytes back up behind it, so
 * the sender sees the stall first, and it must also be the first to act on it. Its cut then
 * reads, in its routing log, as its app's hang-up; the peer's cut reaching it first would read
 * there as the peer dropping the stream, a fault against the peer's engine. And an app that
 * pauses for longer than the peer's wait but less than the sender's (a laptop lid closed for a
 * minute) would get a truncated answer that neither Hub meant to end.
 *
 * Each Hub sizes its own budget (HUB_POOL_FIRST_BYTE_TIMEOUT_MS, HUB_POOL_MIN_PREFILL_TOKENS_PER_SEC),
 * so twice the peer's own budget put the sender first only while the sender's budget was at most
 * twice the peer's. The sender now states its stall budget on the forward, and the peer waits
 * twice the larger of the two.
 */
import { z } from 'zod';

/** The forward's header naming the sender's stall budget, in ms (docs/peer-protocol.md). */
export const STALL_HEADER = 'x-hub-pool-stall-ms';

/**
 * How many times the larger budget a peer serving a forward waits. The sending Hub cuts its app
 * between one and two of its budgets after the app stopped taking bytes (its watch counts whole
 * periods); the peer starts counting only once the sender has stopped reading from it, which is
 * later, and then waits at least twice that budget, so the sender's cut reaches it first.
 */
export const FORWARD_STALL_FACTOR = 2;

/**
 * The largest stall budget a sender's statement is taken at: 335,544,320 ms (about 93 hours),
 * the header budget a Hub at the spec's default settings (300 s, 50 tok/s) gives the largest
 * body the proxy accepts (64 MiB, so 16,777,216 estimated tokens at 50 tok/s). No request a
 * default Hub serves gets more, so a sender stating more has unusual settings or a fault, and a
 * peer never holds an engine slot behind a reader that takes nothing for longer than twice this.
 * A statement above it is read as the cap, not ignored: its sender asked for a long wait, and the
 * peer waits twice the cap, which keeps the sender's cut first for any budget up to the cap (a
 * sender set further beyond it than that may be cut by the peer first).
 * (forward-stall.test.ts holds this figure to header-budget.ts and the proxy's body bound.)
 */
export const MAX_STATED_STALL_MS = 335_544_320;

/**
 * A whole number of ms in plain decimal: no sign, no leading zero (so never 0), no exponent or
 * fraction, at most 20 digits. The sender writes String(budgetMs), which always fits. Node joins a
 * header sent twice with ", ", which this refuses too.
 */
const StatedStallSchema = z
  .string()
  .regex(/^[1-9][0-9]{0,19}$/)
  .transform((digits) => Math.min(Number(digits), MAX_STATED_STALL_MS));

/**
 * The sender's stated stall budget, read as untrusted input: null when the header is absent (a
 * sender from before it) or unreadable, and then the peer's own rule applies; the forward is
 * never refused for it.
 */
export function readStatedStall(value: unknown): number | null {
  const parsed = StatedStallSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/**
 * How long the relay of a forward waits on its reader: FORWARD_STALL_FACTOR times the larger of
 * this Hub's own budget for the request and the sender's stated stall budget (this Hub's own
 * alone when the sender stated none).
 */
export function forwardStallMs(ownBudgetMs: number, senderStallMs: number | null): number {
  return FORWARD_STALL_FACTOR * Math.max(ownBudgetMs, senderStallMs ?? ownBudgetMs);
}
