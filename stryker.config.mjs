// Mutation testing of the modules where the spec's rules live (issue 17; docs/testing.md).
// Run through scripts/mutation.mjs (npm run test:mutation), never as part of npm test.
/** The rule modules. Test files, fixtures and wiring (servers, clients, pollers) are not mutated. */
export const RULE_MODULES = [
  'src/placement/**/*.ts',
  'src/proxy/failover-policy.ts',
  'src/proxy/request-verdict.ts',
  'src/proxy/verdict-tracker.ts',
  'src/proxy/verdict-window.ts',
  'src/proxy/output-check.ts',
  'src/proxy/withhold-book.ts',
  'src/proxy/header-budget.ts',
  'src/peer-auth/**/*.ts',
  'src/pairing/pairing-pin.ts',
  'src/pairing/strike-limiter.ts',
  'src/config/settings-schema.ts',
  'src/config/settings-catalogue.ts',
  'src/config/env.ts',
  'src/config/kill-switch.ts',
  'src/peers/capabilities.ts',
  'src/peers/usable-peers.ts',
  '!src/**/*.test.ts',
  '!src/**/*.fixture.ts',
  '!src/**/*-fixtures.ts',
];

/** Set by `scripts/mutation.mjs --tests=<glob>`: the compiled test files to run instead of every unit test of the rule folders. */
export const MUTATION_TEST_FILES_ENV = 'HUB_MUTATION_TEST_FILES';
const UNIT_TEST_FILES = 'dist/src/{placement,proxy,peer-auth,pairing,config,peers,store}/**/*.test.js';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  mutate: RULE_MODULES,
  testRunner: 'tap',
  // The unit tests of the rule modules' folders, compiled. Integration tests start Hub processes,
  // which do not carry the active mutant, so they cannot kill one and are left out.
  tap: {
    testFiles: [process.env[MUTATION_TEST_FILES_ENV] ?? UNIT_TEST_FILES],
    nodeArgs: ['-r', '{{hookFile}}', '{{testFile}}'],
  },
  // Each test file is one "test" to the tap runner: a mutant runs only the files that reach it.
  coverageAnalysis: 'perTest',
  buildCommand: 'tsc -p tsconfig.json',
  checkers: ['typescript'],
  tsconfigFile: 'tsconfig.json',
  // A mutant the compiler rejects is reported as a compile error, not as a survivor.
  typescriptChecker: { prioritizePerformanceOverAccuracy: true },
  // Two shared cores: one mutant at a time.
  concurrency: 1,
  ignorePatterns: ['dist', 'web', 'bench/results', 'test-artifacts', 'deploy', 'docs'],
  incrementalFile: 'reports/mutation/incremental.json',
  reporters: ['html', 'json', 'clear-text', 'progress'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  clearTextReporter: { allowColor: false, logTests: false },
  thresholds: { high: 95, low: 90, break: null },
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
};
