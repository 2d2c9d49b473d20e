/**
 * How many generated cases a property-based test tries. `npm test` runs each property with the
 * bounded count its file names, so the suite stays fast; `npm run test:fuzz` runs the same files
 * with `--fuzz-runs=N` after the file name (scripts/fuzz.mjs), for a longer search on demand.
 * A failure prints fast-check's seed and path, which replay the exact case.
 */
const FLAG = '--fuzz-runs=';

/** The case count for one property: the command line's --fuzz-runs when given, else `bounded`. */
export function fuzzRuns(bounded: number): number {
  const arg = process.argv.find((a) => a.startsWith(FLAG));
  if (arg === undefined) return bounded;
  const n = Number(arg.slice(FLAG.length));
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`${FLAG}N takes a whole number of at least 1, not "${arg.slice(FLAG.length)}"`);
  return n;
}
