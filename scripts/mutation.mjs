#!/usr/bin/env node
// Mutation testing on demand (docs/testing.md): StrykerJS over the rule modules' unit tests.
//   node scripts/mutation.mjs                      every rule module (stryker.config.mjs)
//   node scripts/mutation.mjs src/placement/rank.ts  just these files
//   node scripts/mutation.mjs --changed            rule modules changed since main (committed or not)
//   node scripts/mutation.mjs src/placement/steps/pin.ts --tests='dist/src/placement/**/*.test.js'
//                                                  only these compiled test files (a glob) run
// --tests narrows the test files Stryker runs (tap.testFiles). A narrower set can only kill fewer
// mutants, so the score it gives is a lower bound; it makes a module that many test files load
// (the placement steps: every file that loads the pipeline) feasible on two cores.
// Every run is incremental: a mutant whose code and covering tests are unchanged since the last
// run keeps its earlier result (reports/mutation/incremental.json); --force runs them all again.
// Any other --option is passed to Stryker as given. The run lowers its own priority first, so
// Stryker and every test process it starts yield the CPU to interactive work.
import { spawnSync } from 'node:child_process';
import { setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import { MUTATION_TEST_FILES_ENV, RULE_MODULES } from '../stryker.config.mjs';

const STRYKER_BIN = fileURLToPath(new URL('../node_modules/@stryker-mutator/core/bin/stryker.js', import.meta.url));
/** Niceness for the whole run: mutation testing is background work. */
const NICENESS = 15;

/** Whether a path is one of the rule modules: the config's globs, of the two shapes it uses. */
function isRuleModule(path) {
  const matches = (pattern) => (pattern.endsWith('/**/*.ts') ? path.startsWith(pattern.slice(0, -'**/*.ts'.length)) && path.endsWith('.ts') : path === pattern);
  const excluded = RULE_MODULES.filter((p) => p.startsWith('!')).some((p) => {
    const suffix = p.slice(p.lastIndexOf('*') + 1);
    return path.endsWith(suffix);
  });
  return !excluded && RULE_MODULES.filter((p) => !p.startsWith('!')).some(matches);
}

function changedFiles() {
  const git = (args) => {
    const r = spawnSync('git', args, { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${r.stderr.trim()}`);
    return r.stdout.split('\n').filter(Boolean);
  };
  const base = git(['merge-base', 'HEAD', 'main'])[0];
  return [...new Set([...git(['diff', '--name-only', base, '--', 'src']), ...git(['ls-files', '--others', '--exclude-standard', '--', 'src'])])];
}

const args = process.argv.slice(2);
const TESTS_OPTION = '--tests=';
const passThrough = args.filter((a) => a.startsWith('-') && a !== '--changed' && !a.startsWith(TESTS_OPTION));
const tests = args.find((a) => a.startsWith(TESTS_OPTION))?.slice(TESTS_OPTION.length);
let files = args.filter((a) => !a.startsWith('-'));
if (args.includes('--changed')) files = [...files, ...changedFiles()];
const outside = files.filter((f) => !isRuleModule(f));
if (outside.length > 0 && !args.includes('--changed')) {
  process.stderr.write(`not a rule module (see RULE_MODULES in stryker.config.mjs): ${outside.join(', ')}\n`);
  process.exit(2);
}
files = files.filter(isRuleModule);
if (args.includes('--changed') && files.length === 0) {
  process.stdout.write('no rule module changed since main: nothing to mutate\n');
  process.exit(0);
}

setPriority(NICENESS);
const strykerArgs = ['run', 'stryker.config.mjs', '--incremental', ...(files.length > 0 ? ['--mutate', files.join(',')] : []), ...passThrough];
process.stdout.write(`stryker ${strykerArgs.join(' ')}\n`);
if (tests !== undefined) process.stdout.write(`test files: ${tests}\n`);
// stryker.config.mjs reads the narrowed glob from here: Stryker's command line has no option for a runner's test files.
const env = tests === undefined ? process.env : { ...process.env, [MUTATION_TEST_FILES_ENV]: tests };
const result = spawnSync(process.execPath, [STRYKER_BIN, ...strykerArgs], { stdio: 'inherit', env });
process.exit(result.status ?? 1);
