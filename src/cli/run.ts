/**
 * The `cihub` entry point (bin/cihub): the command tree from main.ts with the conventions
 * applied, parsed once; every failure leaves as one sentence on stderr and the exit code
 * exit-codes.ts gives it.
 */
import { program } from './main.js';
import { withConventions, withoutHelpAfterUnknownCommand } from './conventions.js';
import { failureOf } from './exit-codes.js';
import { writeErr } from './output.js';

try {
  const tree = withConventions(program);
  await tree.parseAsync(withoutHelpAfterUnknownCommand(tree, process.argv.slice(2)), { from: 'user' });
} catch (err) {
  const failure = failureOf(err);
  if (failure.message !== null) writeErr(`${failure.message}\n`);
  process.exitCode = failure.exitCode;
}
