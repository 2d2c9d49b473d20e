/**
 * The conventions every `cihub` command follows, applied once to the finished command tree:
 * `--version`, `completion bash|zsh|fish`, `help <command path>`, commander's own usage errors
 * thrown (not exited on) so exit-codes.ts decides the code for every failure in one place, each
 * followed by one line saying where the command's usage is.
 */
import type { Command } from 'commander';
import { commandPath } from './command-path.js';
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
  // commander's own `help [command]` reads one name, so `cihub help pool status` printed the pool
  // group's help; this one follows the whole path.
  program.helpCommand(false);
  program
    .command('help')
    .argument('[command...]', 'the command to describe, e.g. pool status')
    .description('display help for command')
    .action((path: string[]) => commandAt(program, path).outputHelp());
  // After every command exists: commander copies these settings only to commands created later.
  for (const cmd of everyCommand(program)) {
    cmd.exitOverride();
    // A command's whole usage is a screen or more; after a typo, one line that says where it is.
    cmd.showHelpAfterError(usageHint(cmd));
  }
  return program;
}

/** The line printed under a usage error: the command whose --help lists what it takes. */
function usageHint(cmd: Command): string {
  const typed = ['cihub', commandPath(cmd)].filter(Boolean).join(' ');
  return `(\`${typed} --help\` lists its ${cmd.commands.length > 0 ? 'commands' : 'options and arguments'})`;
}

export { everyCommand };

function commandAt(program: Command, path: readonly string[]): Command {
  let cmd = program;
  for (const [i, name] of path.entries()) {
    const next = cmd.commands.find((c) => c.name() === name || c.aliases().includes(name));
    if (next === undefined) {
      const at = ['cihub', ...path.slice(0, i)].join(' ');
      throw new UsageError(`${at} has no command ${JSON.stringify(name)}; \`${at} --help\` lists them.`);
    }
    cmd = next;
  }
  return cmd;
}
