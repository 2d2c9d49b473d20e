/**
 * The conventions every `cihub` command follows, applied once to the finished command tree:
 * `--version`, `completion bash|zsh|fish`, `help <command path>`, commander's own usage errors
 * thrown (not exited on) so exit-codes.ts decides the code for every failure in one place, each
 * followed by one line saying where the command's usage is, and an unknown command refused even
 * when --help follows it.
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
  // group's help; this one follows the whole path. Each group gets it too: under commander's,
  // `cihub pool help bogus` printed the group's whole usage where `cihub help pool bogus` says
  // in one sentence that there is no such command.
  for (const group of everyCommand(program).filter((cmd) => cmd === program || cmd.commands.length > 0)) {
    group.helpCommand(false);
    group
      .command('help')
      .argument('[command...]', group === program ? 'the command to describe, e.g. pool status' : 'the command to describe')
      .description('display help for command')
      .action((path: string[]) => commandAt(group, path).outputHelp());
  }
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

const HELP_FLAGS: ReadonlySet<string> = new Set(['-h', '--help']);

/**
 * The command line to parse: as typed, but without its help flags when a word in command position
 * names no command. commander answers `cihub bogus --help` with the help of the group above and
 * exit 0, so a script's typo passed as success; without the flag, commander reports the unknown
 * command (with its "Did you mean" suggestion) as it does for `cihub bogus`.
 */
export function withoutHelpAfterUnknownCommand(program: Command, args: readonly string[]): string[] {
  return unknownCommandWord(program, args) === null ? [...args] : args.filter((a) => !HELP_FLAGS.has(a));
}

/** The first word in command position that names no command of its group; null when there is none. */
function unknownCommandWord(program: Command, args: readonly string[]): string | null {
  let cmd = program;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--') return null;
    if (arg.startsWith('-')) {
      // Skip an option's separate value, so `--data-dir pool` is not read as a command.
      if (!arg.includes('=') && takesValue(cmd, arg)) i++;
      continue;
    }
    // A command with no subcommands reads its words as its own arguments.
    if (cmd.commands.length === 0) return null;
    const next = cmd.commands.find((c) => c.name() === arg || c.aliases().includes(arg));
    if (next === undefined) return arg;
    cmd = next;
  }
  return null;
}

/** Whether `flag` is an option of `cmd` or of a command above it that is given its value in the next word. */
function takesValue(cmd: Command, flag: string): boolean {
  for (let c: Command | null = cmd; c !== null; c = c.parent) {
    const option = c.options.find((o) => o.long === flag || o.short === flag);
    if (option !== undefined) return option.required || option.optional;
  }
  return false;
}

export { everyCommand };

/** The command `path` names below `group`, or a usage error naming the first word that names none. */
function commandAt(group: Command, path: readonly string[]): Command {
  let cmd = group;
  for (const [i, name] of path.entries()) {
    const next = cmd.commands.find((c) => c.name() === name || c.aliases().includes(name));
    if (next === undefined) {
      const at = ['cihub', commandPath(group), ...path.slice(0, i)].filter(Boolean).join(' ');
      throw new UsageError(`${at} has no command ${JSON.stringify(name)}; \`${at} --help\` lists them.`);
    }
    cmd = next;
  }
  return cmd;
}
