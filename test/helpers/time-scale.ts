/**
 * The one factor every test deadline is multiplied by. Tests wait on events (a log line, a
 * poll, a status change); a deadline only bounds how long a broken Hub can hang the run, so it
 * is generous, and on a machine slower or busier than usual HUB_TEST_TIME_SCALE stretches all
 * of them at once (docs/testing.md, "Running the suite on a loaded machine").
 */
const raw = process.env.HUB_TEST_TIME_SCALE;
const parsed = raw === undefined || raw === '' ? 1 : Number(raw);
if (!Number.isFinite(parsed) || parsed < 1) throw new Error(`HUB_TEST_TIME_SCALE must be a number >= 1, not "${raw}"`);

/** The factor in force (1 unless HUB_TEST_TIME_SCALE says otherwise). */
export const TEST_TIME_SCALE = parsed;

/** A deadline of `ms` on an unloaded machine, stretched by the factor. */
export function scaled(ms: number): number {
  return Math.round(ms * TEST_TIME_SCALE);
}
