/**
 * What `cihub` exits with, so scripts and supervisors can tell the failures apart without
 * parsing a sentence: 2 for a command line that was wrong (as getopt-style tools and
 * commander's own parser do), 3 when there is no Hub to talk to, 1 when the Hub or the CLI
 * refused what was asked (or anything else failed).
 */
import { CommanderError } from 'commander';
import { EnvError } from '../config/env-error.js';
import { CliError, HubNotRunningError, UsageError } from './hub-client.js';
import { oneLine } from './output.js';

export const EXIT_OK = 0;
export const EXIT_REFUSED = 1;
export const EXIT_USAGE = 2;
export const EXIT_HUB_NOT_RUNNING = 3;

export interface Failure {
  readonly exitCode: number;
  /** The sentence for stderr; null when commander has printed its own. */
  readonly message: string | null;
}

/**
 * The exit code and the sentence for stderr for whatever a command threw. commander has already
 * printed its own message (and the help hint) for a usage error, so none is repeated. The
 * sentence is kept to one line: it can quote what a peer said (a refused pairing's reason), and
 * a newline there would let the peer print a line of its own under the CLI's.
 */
export function failureOf(err: unknown): Failure {
  if (err instanceof CommanderError) {
    // commander ends output the user asked for with exit code 0: --help, --version, and the
    // `help` command (`cihub help pool`), whose code is the same commander.help a command group
    // run without its subcommand ends with, with exit code 1. So the exit code decides, not the code.
    return { exitCode: err.exitCode === 0 ? EXIT_OK : EXIT_USAGE, message: null };
  }
  const { exitCode, message } = ownFailure(err);
  return { exitCode, message: oneLine(message) };
}

function ownFailure(err: unknown): { exitCode: number; message: string } {
  // An environment variable the CLI cannot read is fixed where the command is started, as a wrong flag is.
  if (err instanceof UsageError || err instanceof EnvError) return { exitCode: EXIT_USAGE, message: err.message };
  if (err instanceof HubNotRunningError) return { exitCode: EXIT_HUB_NOT_RUNNING, message: err.message };
  if (err instanceof CliError) return { exitCode: EXIT_REFUSED, message: err.message };
  return { exitCode: EXIT_REFUSED, message: `cihub failed: ${err instanceof Error ? err.message : String(err)}` };
}
