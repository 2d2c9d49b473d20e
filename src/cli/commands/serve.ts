/** `cihub serve`: runs a Hub in the foreground until SIGTERM or SIGINT, then drains and exits. */
import { join } from 'node:path';
import { DataDirInUseError, dataDirInUseText } from '../../config/data-dir-lock.js';
import { HUB_INFO_FILE, readHubInfo, type HubInfo } from '../../config/data-dir.js';
import { DataDirUnusableError } from '../../config/data-dir-unusable.js';
import { StoreDamagedError } from '../../store/database.js';
import { StoreTooNewError } from '../../store/migrate.js';
import { EnvError, loadEnv, processEnv } from '../../config/env.js';
import { startHub, type HubSystem } from '../../system.js';
import { limitHeapGrowth } from '../../util/heap-growth.js';
import { pidAlive } from '../../util/pid-alive.js';
import { acceptsConnections } from '../accepts-connections.js';
import { UsageError, verifyHub } from '../hub-client.js';
import { listenProblem } from '../listen-check.js';

export async function runServe(opts: { port?: number | undefined; dataDir?: string | undefined; host?: string | undefined }): Promise<void> {
  let env;
  try {
    env = loadEnv(processEnv(), { port: opts.port, dataDir: opts.dataDir, host: opts.host });
  } catch (err) {
    // A value the Hub cannot start with is the command line's fault: exit 2, as a wrong flag is.
    if (err instanceof EnvError) throw new UsageError(err.message);
    throw err;
  }
  const holder = await runningHolder(env.dataDir);
  if (holder !== null)
    throw new UsageError(
      `${holder.answered ? dataDirInUseText(env.dataDir, holder.info) : uncheckedHolderText(env.dataDir, holder.info)} Nothing was written.`,
    );
  const refused = await listenProblem(env.host, env.port);
  if (refused?.about === 'host') {
    const named = opts.host !== undefined ? `--host ${JSON.stringify(opts.host)}` : `HUB_HOST=${env.host}`;
    throw new UsageError(`${named} ${refused.problem}: give one this machine listens on, such as 127.0.0.1, 0.0.0.0 or ::1. Nothing was written.`);
  }
  if (refused?.about === 'port') {
    // Most often the holder is this data dir's own Hub, started twice: then its pid and address are known.
    const holder = readHubInfo(env.dataDir);
    const sameHub = holder !== null && holder.port === env.port && pidAlive(holder.pid);
    throw new UsageError(`${sameHub ? dataDirInUseText(env.dataDir, holder) : portTaken(env.host, env.port, refused.problem)} Nothing was written.`);
  }
  // The daemon's process, so its setting: a Hub started inside another program leaves that program's heap alone.
  limitHeapGrowth(env.heapGrowingPercent);
  // The first signal starts the drain. A later one (Ctrl-C pressed again, a supervisor repeating
  // SIGTERM) ends the drain at once, and the stop still runs to its end: left to Node's default,
  // a second signal of the same kind killed the process mid-stop, leaving hub.json behind and the
  // leaving notice unsent, while one of the other kind was ignored.
  let hub: HubSystem | null = null;
  let signalledWhileStarting: NodeJS.Signals | null = null;
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (hub === null) {
      signalledWhileStarting ??= signal;
      return;
    }
    hub.logger.info({ signal }, 'signal received');
    if (stopping) {
      hub.cutDrainShort();
      return;
    }
    stopping = true;
    void hub.close().then(() => process.exit(0));
  };
  // Handled from before the start: hub.json is in place while the start still syncs its
  // directory, and a SIGTERM sent on seeing it met Node's default action, which killed the Hub
  // and left hub.json behind. A signal during the start stops the Hub as soon as it has started.
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  try {
    hub = await startHub(env);
  } catch (err) {
    // Nothing to drain: the signals are Node's again, so nothing left running can outlive a Ctrl-C.
    process.off('SIGTERM', stop);
    process.off('SIGINT', stop);
    // Another Hub holds this data dir, this account cannot use it, or its hub.db is damaged or was
    // written by a newer cihub: the fix is in how the Hub is started (stop the other, run it as the
    // dir's owner, restore or move the file, run the newer cihub, or another --data-dir), as every
    // other refusal of the data dir says with exit 2.
    if (err instanceof DataDirInUseError || err instanceof DataDirUnusableError || err instanceof StoreDamagedError || err instanceof StoreTooNewError) {
      throw new UsageError(err.message);
    }
    // So is a port something else listens on: stop it, or another --port.
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new UsageError(portTaken(env.host, env.port, 'is already in use (another Hub, or another program, listens there)'));
    }
    throw err;
  }
  if (signalledWhileStarting !== null) stop(signalledWhileStarting);
}

/** The sentence for a port this Hub cannot listen on, whether the check before start-up or the listen itself found it. */
function portTaken(host: string, port: number, problem: string): string {
  return `Port ${port} on ${host} ${problem}; stop what holds it, or start this Hub with --port <another> (or API_PORT).`;
}

/**
 * A live process hub.json names with no boot id: an older Hub, most likely, which the upgrade has
 * not restarted. Hubs that wrote no boot id took no hub.lock either (the claim came later), so
 * nothing else would stop this one starting beside it, overwriting its hub.json and sharing its
 * hub.db and identity.
 */
function uncheckedHolderText(dataDir: string, holder: Pick<HubInfo, 'pid' | 'url'>): string {
  return `The data dir ${dataDir} may be in use by an older Hub: its hub.json names pid ${holder.pid} at ${holder.url}, which is running, but records no boot id (older Hubs wrote none, and took no lock on the dir), so this cihub cannot check that a Hub answers there. Stop that Hub first (kill ${holder.pid}) and start this one again; if pid ${holder.pid} is no Hub, hub.json was left by a Hub that stopped: remove ${join(dataDir, HUB_INFO_FILE)} and start again.`;
}

/**
 * The Hub hub.json names, when its process runs: `answered` when it answers at its URL with its
 * boot id, false when hub.json records none to check (an older Hub's file) and something accepts
 * connections at its URL. hub.lock is the
 * claim (config/data-dir-lock.ts), but a lock file deleted by hand takes the running Hub's claim
 * with it, and a second Hub then took the dir. Only a live process counts, so a hub.json a crash
 * left stops nothing, nor does one with a boot id that nothing answers (a pid since reused). The
 * check sends no credential and asks for no proof of one: a listener that fakes the boot id can
 * only keep this Hub from starting, not learn anything.
 */
async function runningHolder(dataDir: string): Promise<{ readonly info: HubInfo; readonly answered: boolean } | null> {
  const info = readHubInfo(dataDir);
  if (info === null || info.pid === process.pid || !pidAlive(info.pid)) return null;
  if (typeof info.bootId !== 'string') return (await acceptsConnections(info.url)) ? { info, answered: false } : null;
  try {
    // No key is sent and none is asked for: this only learns whether the dir's Hub answers.
    await verifyHub({ url: info.url, operatorKey: '', pid: info.pid, bootId: info.bootId, bootProof: false, dataDir, version: null });
    return { info, answered: true };
  } catch {
    return null;
  }
}
