/**
 * The conventions every `cihub` command follows, applied once to the finished command tree:
 * `--version`, `completion bash|zsh|fish`, and commander's own usage errors thrown (not
 * exited on) so exit-codes.ts decides the code for every failure in one place.
 */
import type { Command } from 'commander';
import { completionScript, completionTree, SHELLS } from './completion.js';
import { UsageError } from './hub-client.js';
import { writeOut } from './output.js';
import { CIHUB_VERSION } from './version.js';

function everyCommand(cmd: Command): Command[] {
  return [cmd, ...cmd.commands.flatMap(everyCommand)];
}

export function withConventions(program: Command): Command {
  program.version(CIHUB_VERSION, '-V, --version', 'print the cihub version');
  program
    .command('completion')
    .argument('<shell>', SHELLS.join('|'))
    .description('print a shell completion script (bash: source <(cihub completion bash); fish: cihub completion fish | source)')
    .action((shell: string) => {
      const known = SHELLS.find((s) => s === shell);
      if (known === undefined) throw new UsageError(`cihub completion takes one of ${SHELLS.join(', ')}; got ${shell}.`);
      writeOut(completionScript(known, completionTree(program)));
    });
  // After every command exists: commander copies this setting only to commands created later.
  for (const cmd of everyCommand(program)) cmd.exitOverride();
  return program;
}

export { everyCommand };
