/**
 * The `cihub` command line. Every command but serve, dev and demo is a client of the Hub on
 * this machine (found through the data dir); none opens the database. Reads take --json and
 * print one JSON document; changes ask [y/N] unless --yes or CI_HUB_ASSUME_YES=1. Failures
 * print one sentence on stderr and exit non-zero.
 */
import { Command, InvalidArgumentError } from 'commander';
import { assumeYes, dataDirFromEnv, processEnv } from '../config/env.js';
import { commandPath } from './command-path.js';
import { UsageError } from './hub-client.js';
import { withLlama } from './llama-import.js';
import { writeOut } from './output.js';
import { untilSignalled } from '../util/until-signalled.js';

/**
 * A command's function, its module imported when the command first runs. `cihub serve` then
 * loads no other command's code: the demo and dev engine alone bring the engine simulator, and
 * the client commands their renderers (bench/README.md, "2026-12-02: idle memory": about 1.2 MB
 * of heap and 30 modules less in a serving Hub). The other way round, a client command does
 * not load the Hub (Fastify, SQLite, every subsystem): `cihub --version` took 0.85 s of CPU
 * with serve imported up front.
 */
function lazy<M, K extends keyof M>(load: () => Promise<M>, name: K): M[K] {
  return (async (...args: unknown[]) => ((await load())[name] as (...a: unknown[]) => Promise<unknown>)(...args)) as M[K];
}
const runServe = lazy(() => import('./commands/serve.js'), 'runServe');
const poolCeiling = lazy(() => import('./commands/node-limits.js'), 'poolCeiling');
const poolContextCap = lazy(() => import('./commands/node-limits.js'), 'poolContextCap');
const poolLog = lazy(() => import('./commands/pool.js'), 'poolLog');
const poolStatus = lazy(() => import('./commands/pool.js'), 'poolStatus');
const poolSwitch = lazy(() => import('./commands/pool.js'), 'poolSwitch');
const poolSlots = lazy(() => import('./commands/slots.js'), 'poolSlots');
const approve = lazy(() => import('./commands/peers.js'), 'approve');
const pair = lazy(() => import('./commands/peers.js'), 'pair');
const pairingPin = lazy(() => import('./commands/peers.js'), 'pairingPin');
const peerSwitch = lazy(() => import('./commands/peers.js'), 'peerSwitch');
const peersList = lazy(() => import('./commands/peers.js'), 'peersList');
const reject = lazy(() => import('./commands/peers.js'), 'reject');
const rotateIdentity = lazy(() => import('./commands/peers.js'), 'rotateIdentity');
const unpair = lazy(() => import('./commands/peers.js'), 'unpair');
const apiKeyCreate = lazy(() => import('./commands/api-key.js'), 'apiKeyCreate');
const apiKeyList = lazy(() => import('./commands/api-key.js'), 'apiKeyList');
const apiKeyRevoke = lazy(() => import('./commands/api-key.js'), 'apiKeyRevoke');
const runDevEngine = lazy(() => import('./dev-engine.js'), 'runDevEngine');
const runDemo = lazy(() => import('./commands/demo.js'), 'runDemo');
const pinCommand = lazy(() => import('./commands/pin.js'), 'pinCommand');
const unpinCommand = lazy(() => import('./commands/pin.js'), 'unpinCommand');
const poolDoctor = lazy(() => import('./commands/doctor.js'), 'poolDoctor');
const probe = lazy(() => import('./commands/address.js'), 'probe');
const poolDiscover = lazy(() => import('./commands/discover.js'), 'poolDiscover');
const poolSet = lazy(() => import('./commands/settings.js'), 'poolSet');
const poolSettings = lazy(() => import('./commands/settings.js'), 'poolSettings');
const dashboardLink = lazy(() => import('./commands/dashboard.js'), 'dashboardLink');
const logs = lazy(() => import('./commands/logs.js'), 'logs');

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
const out = (text: string): void => writeOut(text);
// With --yes the variable is not read: the flag answers already, whatever the environment says.
const yesOf = (o: { yes?: boolean }) => ({ yes: o.yes === true, assumeYes: o.yes !== true && assumeYes(env) });

const program = new Command('cihub')
  .description('Hub Pool: pool LLM inference across the machines you own')
  .option('--data-dir <dir>', 'the Hub data dir (default: $CIHUB_DATA_DIR or ~/.cihub); demo, dev and completion take none')
  .addHelpText(
    'after',
    `
Hub Pool commands (cihub pool <command>):
  status [--json]                 whether pooling routes, this node, its engines and peers
  doctor [--json]                 read-only checks: tailnet, Serve, certificates, operator, engines, machine, discovery, peers, context caps, clocks
  log [--json] [--limit N] [--since 10m|ISO]  recent routing decisions, newest first, with why
  settings [--json]               every setting: value, default, range, and any env var that overrides it
  set <key> <value> [--yes]       change one setting, checked as the API checks it
  slots <n>|clear [--yes]         state how many requests this node's Ollama runs at once (OLLAMA_NUM_PARALLEL)
  enable [--yes]                  turn pooling on for this Hub
  disable [--yes]                 turn pooling off for this Hub
  pairing-pin [--yes]             mint a six-digit PIN here and print the pair command for the other Hub
  discover [--json]               unpaired Hubs this Hub can name, each probed at /identify
  probe <address[:port]> [--json]  is there a Hub at this LAN or tailnet address, and can it pair by address
  pair <name> [--pin D] [--yes]   send a pairing request to the Hub with that tailnet name
  pair <address> --pin D [--yes]  the same by address or a LAN host name outside this tailnet: the PIN-verified answer names the Hub
  peers [--json]                  paired Hubs and pairing requests, with the IDs the commands below take
  approve <ref> [--yes]           approve a request waiting here
  reject <ref> [--yes]            turn down a request waiting here
  unpair <ref> [--yes]            remove a pairing on both Hubs, or cancel a request sent from here
  peer-enable <ref> [--yes]       exchange work with a peer again
  peer-disable <ref> [--yes]      keep a peer paired but exchange no work with it
  rotate-identity [--yes]         a new key for this Hub; removes every pairing
  pin <target> [--model M] [--yes]  prefer 'local' or a peer for one model (or, without --model, for every model)
  unpin [--model M] [--yes]       remove that pin
  ceiling <N|clear> [--yes]       this node's prompt ceiling in estimated tokens (poolMaxPromptTokens)
  context-cap <N|clear> [--yes]   this node's context cap: the window its engine runs (OLLAMA_CONTEXT_LENGTH)
  <ref> is the ID that peers prints (8 characters), the full id, or the tailnet name; changes take --json too
Logs: cihub logs [-f] [--since 10m|ISO] [--level warn] [--json]   this Hub's log (pretty on a terminal, JSON lines piped)`,
  );
const dataDir = () => (program.opts() as { dataDir?: string }).dataDir ?? dataDirFromEnv(env);

/**
 * The commands that read no data dir, and why. `--data-dir` is the one option every command
 * accepts, and before one of these it was parsed and then dropped without a word: `cihub
 * --data-dir /srv/cihub demo` ran on temporary dirs all the same. So it is refused there.
 */
const USES_NO_DATA_DIR: Readonly<Record<string, string>> = {
  demo: 'the demo makes a temporary data dir for each of its Hubs and removes it when it stops',
  'dev engine': 'the engine simulator keeps nothing on disk',
  'dev llama': 'the llama.cpp engine keeps nothing in a data dir (its generated models have their own cache)',
  completion: 'the script is the same for every data dir',
};

program.hook('preAction', (_program, action) => {
  // An empty value would resolve to the working directory (or, for serve, fail on mkdir ''): refused as the usage error it is.
  if ((program.opts() as { dataDir?: string }).dataDir?.trim() === '')
    throw new UsageError('--data-dir needs a directory (the folder that holds hub.json and operator.key); it was given an empty value.');
  const path = commandPath(action);
  const why = USES_NO_DATA_DIR[path];
  if (why !== undefined && (program.opts() as { dataDir?: string }).dataDir !== undefined)
    throw new UsageError(`cihub ${path} takes no --data-dir (${why}); run it without that option.`);
});

program
  .command('serve')
  .description('run a Hub in the foreground')
  .option('--port <n>', 'port to listen on (default: $API_PORT or 5002)', wholeNumber(0, 65535))
  .option('--host <addr>', 'address to listen on (default: $HUB_HOST or 127.0.0.1)')
  .action(async (o: { port?: number; host?: string }) => runServe({ port: o.port, host: o.host, dataDir: (program.opts() as { dataDir?: string }).dataDir }));

const pool = program.command('pool').description('Hub Pool: status, routing log, switches and pairing (see cihub --help)');
pool
  .command('status')
  .description('whether pooling routes, this node, its engines and peers')
  .option('--json', 'print the status document as JSON')
  .action(async (o: { json?: boolean }) => out(await poolStatus({ dataDir: dataDir(), json: o.json === true })));
pool
  .command('log')
  .description('recent routing decisions, newest first, with why')
  .option('--json', 'print the routing-log page as JSON')
  .option('--limit <n>', 'rows to show (1-10000, default 200)', wholeNumber(1, 10_000))
  .option('--since <time>', 'only rows placed or changed at or after this ISO time (with a zone) or age (30s, 10m, 2h, 1d)')
  .action(async (o: { json?: boolean; limit?: number; since?: string }) =>
    out(await poolLog({ dataDir: dataDir(), json: o.json === true, limit: o.limit, since: o.since })),
  );
for (const [name, on] of [
  ['enable', true],
  ['disable', false],
] as const) {
  pool
    .command(name)
    .description(`turn pooling ${on ? 'on' : 'off'} for this Hub`)
    .option('--yes', 'do not ask for confirmation')
    .option('--json', 'print the resulting settings as JSON')
    .action(async (o: { yes?: boolean; json?: boolean }) => out(await poolSwitch(on, { dataDir: dataDir(), json: o.json === true, ...yesOf(o) })));
}
pool
  .command('pairing-pin')
  .description('mint a pairing PIN on this Hub and print the command to run on the other Hub')
  .option('--yes', 'do not ask for confirmation')
  .option('--json', 'print the PIN document as JSON')
  .action(async (o: { yes?: boolean; json?: boolean }) => out(await pairingPin({ dataDir: dataDir(), json: o.json === true, ...yesOf(o) })));
pool
  .command('pair <name>')
  .description('send a pairing request to the Hub with this tailnet name, or at this address (with --pin); it must approve it')
  .option('--pin <digits>', 'the six-digit PIN minted on the other Hub')
  .option('--yes', 'do not ask for confirmation')
  .option('--json', 'print the result as JSON')
  .action(async (name: string, o: { pin?: string; yes?: boolean; json?: boolean }) =>
    out(await pair({ dataDir: dataDir(), name, pin: o.pin, json: o.json === true, ...yesOf(o) })),
  );
pool
  .command('settings')
  .description('every operator setting with its value, default, range and env override')
  .option('--json', 'print the settings as JSON')
  .action(async (o: { json?: boolean }) => out(await poolSettings({ dataDir: dataDir(), json: o.json === true })));
pool
  .command('set <key> <value>')
  .description('change one operator setting (true/false, a number, or null)')
  .option('--yes', 'do not ask for confirmation')
  .option('--json', 'print the changed setting as JSON')
  .action(async (key: string, value: string, o: { yes?: boolean; json?: boolean }) =>
    out(await poolSet({ dataDir: dataDir(), key, value, json: o.json === true, ...yesOf(o) })),
  );
pool
  .command('discover')
  .description('unpaired Hubs this Hub can name (tailnet peers, the Tailscale Admin API), each probed')
  .option('--json', 'print the candidates as JSON')
  .action(async (o: { json?: boolean }) => out(await poolDiscover({ dataDir: dataDir(), json: o.json === true })));
pool
  .command('slots <n>')
  .description("state how many requests this node's Ollama runs at once (1-256), or clear the statement")
  .option('--yes', 'do not ask for confirmation')
  .option('--json', 'print the statement as JSON')
  .action(async (n: string, o: { yes?: boolean; json?: boolean }) =>
    out(await poolSlots({ dataDir: dataDir(), value: n, json: o.json === true, ...yesOf(o) })),
  );
pool
  .command('probe <address>')
  .description('ask the address (ADDRESS[:PORT]; ports 5002 then 3000) whether a Hub answers there; private addresses only')
  .option('--json', 'print the probe result as JSON')
  .action(async (address: string, o: { json?: boolean }) => out(await probe({ dataDir: dataDir(), address, json: o.json === true })));
pool
  .command('peers')
  .description('paired Hubs and pairing requests')
  .option('--json', 'print the peers as JSON')
  .action(async (o: { json?: boolean }) => out(await peersList({ dataDir: dataDir(), json: o.json === true })));
for (const [name, run, what] of [
  ['approve', approve, 'approve a pairing request waiting here'],
  ['reject', reject, 'reject a pairing request waiting here'],
  ['unpair', unpair, 'remove a pairing on both Hubs, or cancel a request sent from here'],
  ['peer-enable', (o: Parameters<typeof peerSwitch>[1]) => peerSwitch(true, o), 'exchange work with a peer again'],
  ['peer-disable', (o: Parameters<typeof peerSwitch>[1]) => peerSwitch(false, o), 'keep a peer paired but exchange no work with it'],
] as const) {
  pool
    .command(`${name} <ref>`)
    .description(what)
    .option('--yes', 'do not ask for confirmation')
    .option('--json', 'print the result as JSON')
    .action(async (ref: string, o: { yes?: boolean; json?: boolean }) => {
      if (ref.trim() === '')
        throw new UsageError(
          `cihub pool ${name} needs a peer: the ID \`cihub pool peers\` prints, the full id, or the tailnet name; it was given an empty value.`,
        );
      out(await run({ dataDir: dataDir(), ref, json: o.json === true, ...yesOf(o) }));
    });
}
pool
  .command('rotate-identity')
  .description('give this Hub a new pool key; every pairing is removed')
  .option('--yes', 'do not ask for confirmation')
  .option('--json', 'print the result as JSON')
  .action(async (o: { yes?: boolean; json?: boolean }) => out(await rotateIdentity({ dataDir: dataDir(), json: o.json === true, ...yesOf(o) })));

pool
  .command('doctor')
  .description('read-only checks of whether this Hub can pool and peers can reach it')
  .option('--json', 'print the checks as JSON')
  .action(async (o: { json?: boolean }) => out(await poolDoctor({ dataDir: dataDir(), json: o.json === true, env })));
pool
  .command('pin <target>')
  .description("prefer 'local' or a peer for a model; a pin reorders, it never forces")
  .option('--model <id>', 'the exact model id; without it, the pool-wide default pin')
  .option('--yes', 'do not ask for confirmation')
  .option('--json', 'print the pins as JSON')
  .action(async (target: string, o: { model?: string; yes?: boolean; json?: boolean }) =>
    out(await pinCommand({ dataDir: dataDir(), target, model: o.model, json: o.json === true, ...yesOf(o) })),
  );
pool
  .command('unpin')
  .description('remove the pin for a model, or the default pin')
  .option('--model <id>', 'the exact model id; without it, the default pin')
  .option('--yes', 'do not ask for confirmation')
  .option('--json', 'print the pins as JSON')
  .action(async (o: { model?: string; yes?: boolean; json?: boolean }) =>
    out(await unpinCommand({ dataDir: dataDir(), model: o.model, json: o.json === true, ...yesOf(o) })),
  );
pool
  .command('ceiling <value>')
  .description("this node's prompt ceiling: N estimated tokens, or clear")
  .option('--yes', 'do not ask for confirmation')
  .option('--json', 'print the ceiling in force as JSON')
  .action(async (value: string, o: { yes?: boolean; json?: boolean }) =>
    out(await poolCeiling({ dataDir: dataDir(), value, json: o.json === true, ...yesOf(o) })),
  );
pool
  .command('context-cap <value>')
  .description("this node's context cap (num_ctx its engine runs): N, or clear")
  .option('--yes', 'do not ask for confirmation')
  .option('--json', 'print the cap as JSON')
  .action(async (value: string, o: { yes?: boolean; json?: boolean }) =>
    out(await poolContextCap({ dataDir: dataDir(), value, json: o.json === true, ...yesOf(o) })),
  );

program
  .command('dashboard')
  .description("print a one-time link that signs a browser in to this Hub's dashboard, and open it when a browser is at hand")
  .option('--json', 'print the link as JSON')
  .option('--no-open', 'only print the link; do not start a browser')
  .action(async (o: { json?: boolean; open: boolean }) => out(await dashboardLink({ dataDir: dataDir(), json: o.json === true, open: o.open, env })));

program
  .command('logs')
  .description("this Hub's log from its data dir, oldest first; pretty on a terminal, JSON lines when piped")
  .option('-f, --follow', 'keep printing new lines until Ctrl-C')
  .option('--since <time>', 'only lines at or after this ISO time (with a zone) or age (30s, 10m, 2h, 1d)')
  .option('--level <level>', 'only lines at this level or above: trace, debug, info, warn, error, fatal')
  .option('--json', 'print the stored JSON lines even on a terminal')
  .action(async (o: { follow?: boolean; since?: string; level?: string; json?: boolean }) =>
    logs({
      dataDir: dataDir(),
      follow: o.follow === true,
      since: o.since,
      level: o.level,
      pretty: o.json !== true && process.stdout.isTTY === true,
      nowMs: Date.now(),
      write: out,
      stopped: o.follow === true ? untilSignalled() : Promise.resolve(),
    }),
  );
const apiKey = program.command('api-key').description('API keys for apps (inference) and monitors (qa:read)');
apiKey
  .command('create')
  .description('mint an API key; it is printed once')
  .requiredOption('--name <name>', 'a label for the key')
  .requiredOption('--scope <scope>', 'inference or qa:read')
  .option('--yes', 'do not ask for confirmation')
  .option('--json', 'print the new key as JSON')
  .action(async (o: { name: string; scope: string; yes?: boolean; json?: boolean }) =>
    out(await apiKeyCreate({ dataDir: dataDir(), name: o.name, scope: o.scope, json: o.json === true, ...yesOf(o) })),
  );
apiKey
  .command('list')
  .description('API keys by id, name and scope (never the key itself)')
  .option('--json', 'print the keys as JSON')
  .action(async (o: { json?: boolean }) => out(await apiKeyList({ dataDir: dataDir(), json: o.json === true })));
apiKey
  .command('revoke <id>')
  .description('revoke an API key; apps using it are refused from then on')
  .option('--yes', 'do not ask for confirmation')
  .option('--json', 'print the result as JSON')
  .action(async (id: string, o: { yes?: boolean; json?: boolean }) => out(await apiKeyRevoke({ dataDir: dataDir(), id, json: o.json === true, ...yesOf(o) })));

interface DevEngineFlags {
  port: number;
  dialect: string;
  model: string;
  prefillTps?: number;
  decodeTps?: number;
  slots?: number;
  timeScale?: number;
  controlPort?: number;
}

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
  .option('--control-port <n>', 'also serve the /__sim routes here, reachable while a refuse fault closes --port (0 = any)', wholeNumber(0, 65535))
  .action(async (o: DevEngineFlags) => {
    const dialect = DIALECTS.find((d) => d === o.dialect);
    if (!dialect) throw new UsageError(`--dialect must be one of ${DIALECTS.join(', ')}; got ${o.dialect}.`);
    const models = o.model
      .split(',')
      .map((m) => m.trim())
      .filter(Boolean);
    if (models.length === 0)
      throw new UsageError(`--model needs at least one model name (comma-separated, such as qwen3:8b,llama3.2:3b); got ${JSON.stringify(o.model)}.`);
    await runDevEngine({
      port: o.port,
      dialect,
      models,
      ...(o.prefillTps ? { prefillTps: o.prefillTps } : {}),
      ...(o.decodeTps ? { decodeTps: o.decodeTps } : {}),
      ...(o.slots ? { slots: o.slots } : {}),
      ...(o.timeScale ? { timeScale: o.timeScale } : {}),
      ...(o.controlPort === undefined ? {} : { controlPort: o.controlPort }),
    });
  });

dev
  .command('llama')
  .description('run a real llama.cpp engine on a generated random-weight model (its text is noise), speaking the Ollama API')
  .requiredOption('--port <n>', 'port to listen on', wholeNumber(0, 65535))
  .option('--model-size <size>', 'tiny|medium', 'tiny')
  .option('--slots <n>', 'parallel generations (context sequences)', wholeNumber(1, 64), 1)
  .option('--ctx <n>', 'context tokens per slot', wholeNumber(64, 1_048_576), 4096)
  .action(async (o: { port: number; modelSize: string; slots: number; ctx: number }) => {
    // node-llama-cpp is a development dependency (and ~350 ms to import): loaded only here and by demo --real.
    await withLlama(async () => {
      const { runDevLlama } = await import('./dev-llama.js');
      await runDevLlama({ port: o.port, modelSize: o.modelSize, slots: o.slots, ctx: o.ctx });
    });
  });

program
  .command('demo')
  .description('three Hubs on loopback, each fronting simulated engines and paired with a PIN; a few requests in both dialects, and where each was served')
  .option('--once', 'exit after the summary instead of staying up for curl')
  .option('--real', 'run on two real llama.cpp engines with generated random-weight models (their text is noise)')
  .action(async (o: { once?: boolean; real?: boolean }) => runDemo({ env, once: o.once === true, real: o.real === true }));

/** The command tree; run.ts applies the CLI conventions to it and parses the command line. */
export { program };
