/**
 * The conventions every command of the real command tree follows (issue 12, item 7): a
 * description on each, --json on each command that prints a read, and exit codes by kind of
 * failure. The tree is main.ts's own, with the conventions applied as bin/cihub applies them.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CommanderError } from 'commander';
import { program } from './main.js';
import { everyCommand, withConventions } from './conventions.js';
import { EXIT_HUB_NOT_RUNNING, EXIT_OK, EXIT_REFUSED, EXIT_USAGE, failureOf } from './exit-codes.js';
import { CliError, HubNotRunningError, UsageError } from './hub-client.js';

const tree = withConventions(program);
const pathOf = (cmd: (typeof tree)['commands'][number]): string => {
  const names: string[] = [];
  for (let c: typeof cmd | null = cmd; c !== null && c.parent !== null; c = c.parent) names.unshift(c.name());
  return names.join(' ');
};
/** Every command but `help`, which each group has (cihub help, cihub pool help ...) and which prints a command's usage. */
const leaves = everyCommand(tree).filter((c) => c.commands.length === 0 && c.name() !== 'help');

/** Commands that run something rather than read it: serving, engines, the demo's show, a script for the shell. */
const NOT_READS = new Set(['serve', 'dev engine', 'dev llama', 'demo', 'completion']);

/**
 * Commands that change nothing: reads, and the dashboard's one-time sign-in link, which grants a
 * browser the session the operator key already holds and changes no setting or pairing.
 * Every other command changes something, so DESIGN.md has it take --yes.
 */
const CHANGES_NOTHING = new Set([
  ...NOT_READS,
  'pool status',
  'pool doctor',
  'pool log',
  'pool settings',
  'pool discover',
  'pool probe',
  'pool peers',
  'api-key list',
  'logs',
  'dashboard',
]);

describe('every cihub command', () => {
  it('has a description', () => {
    const missing = everyCommand(tree)
      .filter((c) => c.description().trim() === '')
      .map((c) => pathOf(c) || 'cihub');
    assert.deepEqual(missing, []);
  });

  it('takes --json wherever it prints a read or a result', () => {
    const without = leaves.filter((c) => !NOT_READS.has(pathOf(c)) && !c.options.some((o) => o.long === '--json')).map(pathOf);
    assert.deepEqual(without, []);
  });

  it('keeps the list of non-read commands to commands that exist', () => {
    const paths = new Set(leaves.map(pathOf));
    assert.deepEqual(
      [...NOT_READS].filter((p) => !paths.has(p)),
      [],
    );
  });

  it('takes --yes wherever it changes something', () => {
    const without = leaves.filter((c) => !CHANGES_NOTHING.has(pathOf(c)) && !c.options.some((o) => o.long === '--yes')).map(pathOf);
    assert.deepEqual(without, []);
  });

  it('keeps the list of commands that change nothing to commands that exist', () => {
    const paths = new Set(leaves.map(pathOf));
    assert.deepEqual(
      [...CHANGES_NOTHING].filter((p) => !paths.has(p)),
      [],
    );
  });
});

/** What `cihub --help` prints, the command lists after commander's own part included. */
function helpText(cmd: typeof tree): string {
  let text = '';
  const saved = { ...cmd.configureOutput() };
  cmd.configureOutput({ ...saved, writeOut: (s: string) => void (text += s) });
  try {
    cmd.outputHelp();
  } finally {
    cmd.configureOutput(saved);
  }
  return text;
}

describe('the command lists in cihub --help', () => {
  const lines = helpText(tree).split('\n');
  const from = lines.findIndex((l) => l.startsWith('Hub Pool commands'));
  const poolLines = lines.slice(from + 1).filter((l) => /^  [a-z]/.test(l));
  const listed = (cmd: (typeof leaves)[number]): string[] =>
    cmd.parent?.name() === 'pool'
      ? poolLines.filter((l) => l.trimStart().split(' ')[0] === cmd.name())
      : lines.filter((l) => l.startsWith(`Logs: cihub ${cmd.name()} `));
  const described = leaves.filter((c) => c.parent?.name() === 'pool' || pathOf(c) === 'logs');

  it('lists every pool command', () => {
    for (const cmd of described) assert.notDeepEqual(listed(cmd), [], `${pathOf(cmd)} is not listed`);
  });

  it("names every option each command takes (a change's --json is said once, below the list)", () => {
    for (const cmd of described) {
      const text = listed(cmd).join('\n');
      for (const option of cmd.options) {
        if (option.long === '--json' && !CHANGES_NOTHING.has(pathOf(cmd))) continue;
        const named = [option.long, option.short].some((flag) => flag !== undefined && new RegExp(`\\[?${flag}\\b`).test(text));
        assert.ok(named, `${pathOf(cmd)}: ${option.flags} is missing from its line(s):\n${text}`);
      }
    }
  });
});

describe('exit codes', () => {
  const cases: Array<{ what: string; err: unknown; exitCode: number; message: string | null }> = [
    { what: 'help the user asked for', err: new CommanderError(0, 'commander.helpDisplayed', '(outputHelp)'), exitCode: EXIT_OK, message: null },
    { what: '--version', err: new CommanderError(0, 'commander.version', '0.1.0'), exitCode: EXIT_OK, message: null },
    { what: 'the help command (cihub help pool)', err: new CommanderError(0, 'commander.help', '(outputHelp)'), exitCode: EXIT_OK, message: null },
    {
      what: "commander's unknown command (it printed its own message)",
      err: new CommanderError(1, 'commander.unknownCommand', "error: unknown command 'x'"),
      exitCode: EXIT_USAGE,
      message: null,
    },
    { what: 'a command group run without its subcommand', err: new CommanderError(1, 'commander.help', '(outputHelp)'), exitCode: EXIT_USAGE, message: null },
    { what: 'a value the CLI refuses', err: new UsageError('--pin must be six digits.'), exitCode: EXIT_USAGE, message: '--pin must be six digits.' },
    { what: 'no Hub running', err: new HubNotRunningError('The Hub is not running.'), exitCode: EXIT_HUB_NOT_RUNNING, message: 'The Hub is not running.' },
    { what: 'the Hub refused', err: new CliError('The Hub refused: no.'), exitCode: EXIT_REFUSED, message: 'The Hub refused: no.' },
    { what: 'anything else', err: new Error('boom'), exitCode: EXIT_REFUSED, message: 'cihub failed: boom' },
    {
      what: "a refusal quoting a peer's newlines and tabs, kept to one line",
      err: new CliError('Pairing failed: hub-x declined (HTTP 403): no.\n\nApproved hub-x\tok.'),
      exitCode: EXIT_REFUSED,
      message: 'Pairing failed: hub-x declined (HTTP 403): no.\\n\\nApproved hub-x\\tok.',
    },
  ];
  for (const c of cases) {
    it(`${c.what}: exit ${c.exitCode}`, () => {
      assert.deepEqual(failureOf(c.err), { exitCode: c.exitCode, message: c.message });
    });
  }
});
