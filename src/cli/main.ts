/**
 * The `cihub` command line. Every command but serve, dev and demo is a client of the Hub on
 * this machine (found through the data dir); none opens the database. Reads take --json and
 * print one JSON document; changes ask [y/N] unless --yes or CI_HUB_ASSUME_YES=1. Failures
 * print one sentence on stderr and exit non-zero.
 */
import { Command, InvalidArgumentError } from 'commander';
import { assumeYes, dataDirFromEnv, processEnv } from '../config/env.js';
import { CliError } from './hub-client.js';
import { runServe } from './commands/serve.js';
import { poolLog, poolStatus, poolSwitch } from './commands/pool.js';
import { apiKeyCreate, apiKeyList, apiKeyRevoke } from './commands/api-key.js';
import { runDevEngine } from './dev-engine.js';
import { runDemo } from './commands/demo.js';

const DIALECTS = ['ollama', 'vllm', 'lemonade', 'omlx', 'llamacpp'] as const;

function wholeNumber(min: number, max: number) {
  return (value: string) => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || n < min || n > max) throw new InvalidArgumentError(`expected a whole number from ${min} to ${max}`);
    return n;
  };
}

function positiveNumber(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected a positive number');
  return n;
}

const env = processEnv();
const out = (text: string): void => {
  process.stdout.write(text);
};
const yesOf = (o: { yes?: boolean }) => ({ yes: o.yes === true, assumeYes: assumeYes(env) });

const program = new Command('cihub')
  .description('Hub Pool: pool LLM inference across the machines you own')
  .option('--data-dir <dir>', 'the Hub data dir (default: $CIHUB_DATA_DIR or ~/.cihub)')
  .showHelpAfterError()
  .addHelpText(
    'after',
    `
Hub Pool commands (cihub pool <command>):
  status [--json]               whether pooling routes, this node, its engines and peers
  log [--json] [--limit N]      recent routing decisions, newest first, with why
  enable [--yes]                turn pooling on for this Hub
  disable [--yes]               turn pooling off for this Hub`,
  );
const dataDir = () => (program.opts() as { dataDir?: string }).dataDir ?? dataDirFromEnv(env);

program
  .command('serve')
  .description('run a Hub in the foreground')
  .option('--port <n>', 'port to listen on (default: $API_PORT or 5002)', wholeNumber(0, 65535))
  .option('--host <addr>', 'address to listen on (default: $HUB_HOST or 127.0.0.1)')
  .action(async (o: { port?: number; host?: string }) => runServe({ port: o.port, host: o.host, dataDir: (program.opts() as { dataDir?: string }).dataDir }));

const pool = program.command('pool').description('Hub Pool: status, routing log and switches (see cihub --help)');
pool
  .command('status')
  .option('--json', 'print the status document as JSON')
  .action(async (o: { json?: boolean }) => out(await poolStatus({ dataDir: dataDir(), json: o.json === true })));
pool
  .command('log')
  .option('--json', 'print the routing-log page as JSON')
  .option('--limit <n>', 'rows to show (1-10000, default 200)', wholeNumber(1, 10_000))
  .option('--since <iso>', 'only rows placed or changed at or after this ISO time (with a zone)')
  .action(async (o: { json?: boolean; limit?: number; since?: string }) => out(await poolLog({ dataDir: dataDir(), json: o.json === true, limit: o.limit, since: o.since })));
for (const [name, on] of [['enable', true], ['disable', false]] as const) {
  pool
    .command(name)
    .option('--yes', 'do not ask for confirmation')
    .option('--json', 'print the resulting settings as JSON')
    .action(async (o: { yes?: boolean; json?: boolean }) => out(await poolSwitch(on, { dataDir: dataDir(), json: o.json === true, ...yesOf(o) })));
}

const apiKey = program.command('api-key').description('API keys for apps (inference) and monitors (qa:read)');
apiKey
  .command('create')
  .requiredOption('--name <name>', 'a label for the key')
  .requiredOption('--scope <scope>', 'inference or qa:read')
  .option('--json', 'print the new key as JSON')
  .action(async (o: { name: string; scope: string; json?: boolean }) => out(await apiKeyCreate({ dataDir: dataDir(), ...o, json: o.json === true })));
apiKey
  .command('list')
  .option('--json', 'print the keys as JSON')
  .action(async (o: { json?: boolean }) => out(await apiKeyList({ dataDir: dataDir(), json: o.json === true })));
apiKey
  .command('revoke <id>')
  .option('--yes', 'do not ask for confirmation')
  .option('--json', 'print the result as JSON')
  .action(async (id: string, o: { yes?: boolean; json?: boolean }) => out(await apiKeyRevoke({ dataDir: dataDir(), id, json: o.json === true, ...yesOf(o) })));

const dev = program.command('dev').description('development tools');
dev
  .command('engine')
  .description('run the engine simulator')
  .requiredOption('--port <n>', 'port to listen on', wholeNumber(0, 65535))
  .requiredOption('--dialect <dialect>', DIALECTS.join('|'))
  .requiredOption('--model <names>', 'model name(s), comma-separated')
  .option('--prefill-tps <n>', 'prompt tokens per second', positiveNumber)
  .option('--decode-tps <n>', 'generated tokens per second', positiveNumber)
  .option('--slots <n>', 'parallel generations per model', wholeNumber(1, 64))
  .option('--time-scale <x>', 'multiply every simulated wait by x (0.01 = 100 times faster)', positiveNumber)
  .action(async (o: { port: number; dialect: string; model: string; prefillTps?: number; decodeTps?: number; slots?: number; timeScale?: number }) => {
    const dialect = DIALECTS.find((d) => d === o.dialect);
    if (!dialect) throw new CliError(`--dialect must be one of ${DIALECTS.join(', ')}; got ${o.dialect}.`);
    const models = o.model.split(',').map((m) => m.trim()).filter(Boolean);
    await runDevEngine({ port: o.port, dialect, models, ...(o.prefillTps ? { prefillTps: o.prefillTps } : {}), ...(o.decodeTps ? { decodeTps: o.decodeTps } : {}), ...(o.slots ? { slots: o.slots } : {}), ...(o.timeScale ? { timeScale: o.timeScale } : {}) });
  });

program
  .command('demo')
  .description('a Hub with two simulated engines on loopback, a few requests in both dialects, and where each was served')
  .option('--once', 'exit after the summary instead of staying up for curl')
  .action(async (o: { once?: boolean }) => runDemo({ env, once: o.once === true }));

try {
  await program.parseAsync(process.argv);
} catch (err) {
  const message = err instanceof CliError ? err.message : `cihub failed: ${(err as Error).message ?? String(err)}`;
  process.stderr.write(`${message}\n`);
  process.exitCode = 1;
}
