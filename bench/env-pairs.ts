/** `--hub-env NAME=VALUE` (repeatable), as the benchmarks that start a Hub take it: an environment for that Hub alone. */
export function parseEnvPairs(pairs: readonly string[], flag = '--hub-env'): Record<string, string> {
  return Object.fromEntries(
    pairs.map((pair) => {
      const eq = pair.indexOf('=');
      if (eq <= 0) throw new Error(`${flag} wants NAME=VALUE, got ${JSON.stringify(pair)}`);
      return [pair.slice(0, eq), pair.slice(eq + 1)];
    }),
  );
}
