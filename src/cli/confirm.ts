/**
 * Confirmation for commands that change something: [y/N] on a terminal, --yes or
 * CI_HUB_ASSUME_YES=1 otherwise. A terminal that cannot prompt is refused, not assumed.
 */
import { createInterface } from 'node:readline/promises';
import { CliError } from './hub-client.js';
import { terminalSafe } from './output.js';

export async function confirm(question: string, opts: { yes: boolean; assumeYes: boolean }): Promise<void> {
  if (opts.yes || opts.assumeYes) return;
  // One sentence, as every CLI failure is: the question itself (often two sentences) is only for a terminal.
  if (!process.stdin.isTTY)
    throw new CliError('Nothing was changed: this command needs confirmation, so pass --yes or set CI_HUB_ASSUME_YES=1 when no terminal can answer.');
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  const answer = (await rl.question(`${terminalSafe(question)} [y/N] `)).trim().toLowerCase();
  rl.close();
  if (answer !== 'y' && answer !== 'yes') throw new CliError('Cancelled; nothing was changed.');
}
