#!/usr/bin/env node
// The property-based tests with many more generated cases than npm test tries (docs/testing.md).
//   node scripts/fuzz.mjs               every fuzz file, 5,000 cases per property
//   node scripts/fuzz.mjs --runs=20000  another count
// Each file is run on its own with --fuzz-runs=N after its name (test/helpers/fuzz-runs.ts);
// build first (npx tsc -p tsconfig.json), as for npm test.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const FUZZ_FILES = [
  'dist/src/peer-auth/canonical-fuzz.test.js',
  'dist/src/engines/engine-listings-fuzz.test.js',
  'dist/src/peers/capabilities-fuzz.test.js',
  'dist/src/tailnet/peer-name-fuzz.test.js',
  'dist/test/integration/fuzz-inputs.test.js',
  'dist/test/integration/fuzz-proxy-bodies.test.js',
];
const DEFAULT_RUNS = 5_000;

const runsArg = process.argv.slice(2).find((a) => a.startsWith('--runs='));
const runs = runsArg === undefined ? DEFAULT_RUNS : Number(runsArg.slice('--runs='.length));
if (!Number.isSafeInteger(runs) || runs < 1) {
  process.stderr.write(`--runs=N takes a whole number of at least 1\n`);
  process.exit(2);
}
const missing = FUZZ_FILES.filter((f) => !existsSync(f));
if (missing.length > 0) {
  process.stderr.write(`not built: ${missing.join(', ')} (run npx tsc -p tsconfig.json)\n`);
  process.exit(1);
}
let failed = false;
for (const file of FUZZ_FILES) {
  const r = spawnSync(process.execPath, ['--test-reporter=spec', file, `--fuzz-runs=${runs}`], { stdio: 'inherit' });
  if (r.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
