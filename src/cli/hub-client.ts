/**
 * The CLI's client of the Hub's HTTP API. The CLI never opens the database: it finds its
 * Hub through hub.json in the data dir and authenticates with operator.key beside it.
 * Every failure becomes a CliError carrying one sentence for stderr.
 */
import { request } from '../util/undici-lean.js';
import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { dataDirRefused, HUB_INFO_FILE, OPERATOR_KEY_FILE, readHubInfo, readOperatorKey } from '../config/data-dir.js';
import { homeDataDir, processEnv, sudoUser } from '../config/env.js';
import { BOOT_CHALLENGE_QUERY, bootProofMatches, newBootChallenge } from '../auth/boot-proof.js';
import { HUB_BOOT_PATH } from '../http/hub-boot-routes.js';
import { acceptsConnections } from './accepts-connections.js';
import { parseJsonOrUndefined, readBounded, UpstreamReadError } from '../util/bounded-read.js';
import { describeCallFailure, isCallTimeout, noAnswerWithin } from '../util/call-failure.js';
import { pidAlive } from '../util/pid-alive.js';
import { writeErr } from './output.js';
import { CIHUB_VERSION } from './version.js';
import { versionSkewWarning } from './version-skew.js';

/** The liveness check before the key is sent answers in well under a second; past 5 s nothing useful is listening. */
export const BOOT_CHECK_TIMEOUT_MS = 5_000;
/**
 * How long a command waits for its Hub's answer: 30 s. Every route must answer within it; the
 * slowest, a discovery scan, is held to 25 s (DISCOVERY_SCAN_BUDGET_MS plus one probe).
 */
export const HUB_CALL_TIMEOUT_MS = 30_000;
/** A boot answer is one short JSON object; anything longer is not a Hub. */
const BOOT_ANSWER_MAX_BYTES = 4 * 1024;

export class CliError extends Error {
  /** When the Hub refused: its error code and message, for a command that words a refusal itself. */
  readonly hub: { readonly status: number; readonly code: string | null; readonly message: string | null } | undefined;

  constructor(message: string, hub?: { status: number; code: string | null; message: string | null }) {
    super(message);
    this.name = 'CliError';
    this.hub = hub;
  }
}

/** The command line itself was wrong (a bad value, a missing flag): exit code 2, like commander's own usage errors. */
export class UsageError extends CliError {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/**
 * The CLI cannot ask its Hub anything: none answers for the data dir, this account cannot read
 * what leads to it, or the Hub refuses the check made before the key is sent. Beside the one
 * sentence every command prints, `found` and `fix` hold its two halves for `cihub pool doctor`,
 * which reports them as a check of their own (H1) and goes on with the checks it can make
 * without a Hub.
 */
export class HubUnreachableError extends CliError {
  constructor(
    message: string,
    readonly found: string,
    readonly fix: string,
  ) {
    super(message);
    this.name = 'HubUnreachableError';
  }
}

/** found and fix as the two sentences of a message: what the CLI saw, then what to do. */
function foundThenFix(found: string, fix: string): string {
  return `${found[0]!.toUpperCase()}${found.slice(1)}. ${fix[0]!.toUpperCase()}${fix.slice(1)}.`;
}

/** A path as one shell word: as it is when nothing in it needs quoting, else in single quotes. */
function shellWord(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replaceAll("'", "'\\''")}'`;
}

/**
 * The command that starts a Hub on this data dir. A bare `cihub serve` takes $CIHUB_DATA_DIR or
 * ~/.cihub, so after `cihub --data-dir /srv/cihub pool status` it would start another Hub in
 * another dir: the dir is named unless it is the default one.
 */
export function serveCommand(dataDir: string, defaultDataDir: string = homeDataDir()): string {
  return resolve(dataDir) === resolve(defaultDataDir) ? '`cihub serve`' : `\`cihub serve --data-dir ${shellWord(dataDir)}\``;
}

/** No Hub answers for this data dir: exit code 3, so a script can tell "start it" from "it said no". */
export class HubNotRunningError extends HubUnreachableError {
  constructor(message: string, found: string = message, fix: string = `start it with ${serveCommand(homeDataDir())}`) {
    super(message, found, fix);
    this.name = 'HubNotRunningError';
  }
}

/**
 * The process hub.json records still exists but the Hub gave no answer in time: suspended (Ctrl-Z
 * on the terminal running `cihub serve`, SIGSTOP) or stuck. Still exit code 3, since nothing here
 * answers, but "start it" would be wrong: a second `cihub serve` is refused while that process
 * holds the data dir, so the sentence names the process and how to resume or restart it.
 */
export class HubNotAnsweringError extends HubNotRunningError {
  constructor(hub: Pick<HubTarget, 'url' | 'pid' | 'dataDir'>, timeoutMs: number) {
    const found = `the Hub for the data dir ${hub.dataDir} is still running (pid ${hub.pid}) but did not answer at ${hub.url} (${noAnswerWithin(timeoutMs)})`;
    const fix = `if it was suspended (Ctrl-Z, SIGSTOP), resume it (fg, or kill -CONT ${hub.pid}); otherwise stop it (kill ${hub.pid}, or kill -9 ${hub.pid} if it does not exit) and start it again with ${serveCommand(hub.dataDir)}`;
    super(foundThenFix(found, fix), found, fix);
    this.name = 'HubNotAnsweringError';
  }
}

export interface HubTarget {
  readonly url: string;
  readonly operatorKey: string;
  /** What hub.json says about the process that wrote it, checked before the key leaves. */
  readonly pid: number;
  readonly bootId: string | null;
  /** Whether hub.json says its Hub proves the operator key at the boot check (HubInfo.bootProof); false for an older Hub's file. */
  readonly bootProof: boolean;
  readonly dataDir: string;
  /** The cihub version hub.json records for the running Hub; null when it records none (an older Hub wrote it). */
  readonly version: string | null;
  /** Where the version warning goes: stderr, unless a test listens. */
  readonly warn?: (line: string) => void;
  /** The check, and the version warning after it, run once per command, however many calls follow. */
  verified?: Promise<void>;
}

/** Who runs this cihub, as far as finding the Hub goes; the process by default, a table in tests. */
export interface Invoker {
  readonly uid: number | null;
  /** SUDO_USER: the account that ran sudo, when cihub runs under it. */
  readonly sudoUser: string | null;
  /** ~/.cihub of the account cihub runs as: where it looks when neither --data-dir nor CIHUB_DATA_DIR says. */
  readonly defaultDataDir: string;
}

const thisProcess = (): Invoker => ({
  uid: process.getuid?.() ?? null,
  sudoUser: sudoUser(processEnv()),
  defaultDataDir: homeDataDir(),
});

/**
 * Whether a data dir with no Hub is root's own because cihub runs under plain sudo: then the
 * Hub most likely runs as the account that typed sudo, in its data dir, and "start one with
 * cihub serve" would start a second Hub as root. The operator guide tells operators to expect
 * "No device key found" here, so that is how the sentence starts.
 */
export function sudoLookedInRootsHome(dataDir: string, who: Invoker): boolean {
  return who.uid === 0 && who.sudoUser !== null && who.sudoUser !== 'root' && dataDir === who.defaultDataDir;
}

/** Whether the data dir named is there but is a file: then every read below fails in a way that would blame permissions. */
function isFile(path: string): boolean {
  try {
    return !statSync(path).isDirectory();
  } catch {
    return false;
  }
}

export function findHub(dataDir: string, who: Invoker = thisProcess()): HubTarget {
  if (isFile(dataDir))
    throw new UsageError(
      `The data dir ${dataDir} is a file, not a directory: --data-dir (or CIHUB_DATA_DIR) names the folder that holds hub.json and operator.key, such as ~/.cihub.`,
    );
  const info = readHubInfo(dataDir);
  if (info === null && sudoLookedInRootsHome(dataDir, who)) {
    throw new HubNotRunningError(
      `No device key found: under sudo, cihub looked in root's data dir ${dataDir}, and no Hub runs there. Run cihub as the account the Hub runs as: without sudo (as ${who.sudoUser}, if the Hub is yours), or with \`sudo -u <that account>\`.`,
      `no device key found: under sudo, cihub looked in root's data dir ${dataDir}, and no Hub runs there`,
      `run cihub as the account the Hub runs as: without sudo (as ${who.sudoUser}, if the Hub is yours), or with \`sudo -u <that account>\``,
    );
  }
  if (info === null && dataDirRefused(dataDir)) {
    throw new HubUnreachableError(
      `This account cannot read the data dir ${dataDir}, so it cannot tell whether its Hub runs. Run cihub as the user that owns that folder (the account the Hub runs as), not under sudo or as another user.`,
      `this account cannot read the data dir ${dataDir}, so it cannot tell whether its Hub runs`,
      'run cihub as the user that owns that folder (the account the Hub runs as), not under sudo or as another user',
    );
  }
  if (info === null)
    throw new HubNotRunningError(
      `No Hub is running for the data dir ${dataDir} (no hub.json there). Start one with ${serveCommand(dataDir, who.defaultDataDir)}.`,
      `no Hub is running for the data dir ${dataDir} (no hub.json there)`,
      `start one with ${serveCommand(dataDir, who.defaultDataDir)}`,
    );
  const operatorKey = readOperatorKey(dataDir);
  if (operatorKey === null)
    throw new HubUnreachableError(
      // The guide's words for this case, so an operator who reads them there finds them here.
      `No device key found: ${dataDir} has no operator.key this account can read. Run cihub as the user that owns that folder (the account the Hub runs as, with \`sudo -u <user>\` if need be), not under plain sudo.`,
      `no device key found: ${dataDir} has no operator.key this account can read, so the Hub cannot be asked`,
      'run cihub as the user that owns that folder',
    );
  return {
    url: info.url,
    operatorKey,
    pid: info.pid,
    bootId: typeof info.bootId === 'string' ? info.bootId : null,
    bootProof: info.bootProof === true,
    dataDir,
    version: typeof info.version === 'string' ? info.version : null,
  };
}

/** The Hub's error body as one sentence for stderr (even when its message runs to two), and its parts. */
function refusal(statusCode: number, json: unknown): { said: string; hub: { status: number; code: string | null; message: string | null } } {
  const err = (json as { error?: { message?: unknown; code?: unknown } } | null)?.error;
  const message = typeof err?.message === 'string' ? err.message : null;
  const code = typeof err?.code === 'string' ? err.code : null;
  const said = (message ?? `HTTP ${statusCode}`)
    .trim()
    .replace(/\.\s+(?=\S)/g, '; ')
    .replace(/\.$/, '');
  return { said: `${said}${code ? ` (${code})` : ''}`, hub: { status: statusCode, code, message } };
}

/**
 * Sends nothing secret: the recorded process must still exist, and the listener at the
 * recorded URL must answer the recorded boot id without being given a credential, and, when
 * hub.json says its Hub can, prove with this call's fresh challenge that it holds the key
 * (auth/boot-proof.ts): a boot id recorded while the Hub ran is no passport then. A listener
 * that refuses the check with a Hub's error (403 HUB_ERR_HOST_NOT_ALLOWED, say) is running, so
 * its reason is passed on; anything else means hub.json outlived its Hub, and the one sentence
 * says so. A live process recorded with no boot id is most likely an older Hub (OlderHubUncheckedError):
 * nothing is sent to it at all.
 */
export async function verifyHub(hub: HubTarget): Promise<void> {
  const notRunning = new HubNotRunningError(
    `The Hub is not running: ${hub.dataDir}/hub.json is left over from a Hub that has stopped, so the operator key was not sent to ${hub.url}; start it with ${serveCommand(hub.dataDir)}.`,
    `no Hub is running for the data dir ${hub.dataDir}: its hub.json is left over from a Hub that has stopped`,
    `start it with ${serveCommand(hub.dataDir)}`,
  );
  if (!pidAlive(hub.pid)) throw notRunning;
  // As `cihub serve` judges it: a reused pid with nothing listening at the address is no Hub.
  if (hub.bootId === null) throw (await acceptsConnections(hub.url)) ? new OlderHubUncheckedError(hub) : notRunning;
  const challenge = hub.bootProof ? newBootChallenge() : null;
  let status: number;
  let answered: unknown;
  try {
    const res = await request(`${hub.url}${HUB_BOOT_PATH}${challenge === null ? '' : `?${BOOT_CHALLENGE_QUERY}=${challenge}`}`, {
      method: 'GET',
      headersTimeout: BOOT_CHECK_TIMEOUT_MS,
      bodyTimeout: BOOT_CHECK_TIMEOUT_MS,
      signal: AbortSignal.timeout(BOOT_CHECK_TIMEOUT_MS),
    });
    const bytes = await readBounded(res.body, { maxBytes: BOOT_ANSWER_MAX_BYTES, timeoutMs: BOOT_CHECK_TIMEOUT_MS }, res.headers['content-length']);
    status = res.statusCode;
    answered = parseJsonOrUndefined(bytes) ?? null;
  } catch (err) {
    // The process is alive (checked above), so a listener that takes the call and stays silent is that Hub, held up.
    if (isCallTimeout(err)) throw new HubNotAnsweringError(hub, BOOT_CHECK_TIMEOUT_MS);
    if (err instanceof UpstreamReadError) throw notRunning;
    throw callFailed(hub, describeCallFailure(err, BOOT_CHECK_TIMEOUT_MS));
  }
  if (status >= 400 && typeof (answered as { error?: { code?: unknown } } | null)?.error?.code === 'string') {
    // No `hub` details: they would read as a refusal of the command's own call, which was never
    // made. Unreachable rather than not running (exit 1, not 3): the Hub runs, it only cannot be asked.
    const { said, hub: refused } = refusal(status, answered);
    throw new HubUnreachableError(
      `The Hub at ${hub.url} refused the CLI's check, so the operator key was not sent: ${said}.`,
      `the Hub at ${hub.url} is running but refused the CLI's check, so the operator key was not sent: ${said}`,
      refused.code === 'HUB_ERR_HOST_NOT_ALLOWED'
        ? "add the name the Hub quotes to HUB_ALLOWED_HOSTS in the Hub's environment and restart the Hub"
        : `act on the Hub's reason: until it answers the check at ${HUB_BOOT_PATH}, no command sends it the key`,
    );
  }
  if (status !== 200 || (answered as { bootId?: unknown } | null)?.bootId !== hub.bootId) throw notRunning;
  if (challenge !== null && !bootProofMatches((answered as { proof?: unknown }).proof, hub.operatorKey, hub.bootId, challenge)) throw proofMissing(hub);
}

/**
 * hub.json names a live process, and something takes connections at its address, but it records
 * no boot id: Hubs wrote none before the CLI began to check one, so the likeliest writer is an
 * older Hub the upgrade has not restarted yet. Told "not running", as it was, the operator was
 * sent to start a second Hub beside it. With no boot id the listener cannot be told from whatever
 * took the port, so nothing is sent; the sentence names the restart, and the other reading (the
 * pid reused, hub.json left by a Hub that died). A class of its own so `cihub pool doctor` can
 * say why it cannot compare versions (H2): such a Hub predates hub.json's version too.
 */
export class OlderHubUncheckedError extends HubUnreachableError {
  constructor(hub: Pick<HubTarget, 'url' | 'pid' | 'dataDir'>) {
    const found = `an older Hub seems to run as pid ${hub.pid} for the data dir ${hub.dataDir}, but its hub.json records no boot id (Hubs wrote none before this check), so this cihub cannot check what answers at ${hub.url} and did not send it the operator key`;
    const fix = `restart that Hub with this cihub (stop pid ${hub.pid}, then start it with ${serveCommand(hub.dataDir)} or its service manager); if no Hub runs there, pid ${hub.pid} now belongs to another process and hub.json was left by a Hub that stopped: remove ${join(hub.dataDir, HUB_INFO_FILE)}`;
    super(foundThenFix(found, fix), found, fix);
    this.name = 'OlderHubUncheckedError';
  }
}

/**
 * The listener answered the recorded boot id but not the proof of the key operator.key holds.
 * The Hub read its key when it started, so either the file changed since, or, while the
 * recorded pid lives on in another process, what answers is not the Hub but something that
 * learnt its boot id. The CLI cannot tell which from here, so the sentence names both.
 */
function proofMissing(hub: HubTarget): HubUnreachableError {
  const file = join(hub.dataDir, OPERATOR_KEY_FILE);
  const found = `the Hub at ${hub.url} did not prove it holds the operator key in ${file}, so the key was not sent: the file no longer holds the key this Hub started with (it was replaced or edited since), or what answers there is not the Hub`;
  const fix = `restart the Hub (${serveCommand(hub.dataDir)}, or its service manager) so it reads operator.key again; if pid ${hub.pid} is not a cihub, stop whatever listens at ${hub.url} first`;
  return new HubUnreachableError(foundThenFix(found, fix), found, fix);
}

/**
 * A call to the Hub that failed outright (refused, reset): nothing here may be running. While
 * the process hub.json names is still alive, the likeliest reason is a Hub shutting down, which
 * closes its listener first and then finishes its requests: "start it" would then fail on the
 * data dir it still holds (audit, 2026-12-07).
 */
function callFailed(hub: HubTarget, failure: string): HubNotRunningError {
  if (pidAlive(hub.pid))
    return new HubNotRunningError(
      `The Hub's process (pid ${hub.pid}) is still running, but nothing answered at ${hub.url} (${failure}): it is most likely shutting down, finishing the requests it has. Run the command again once it has exited, and start it with ${serveCommand(hub.dataDir)} if it should be running.`,
      `the Hub for the data dir ${hub.dataDir} is not answering at ${hub.url} (${failure}), though its process (pid ${hub.pid}) is still running: most likely shutting down`,
      `wait for pid ${hub.pid} to exit, then start it with ${serveCommand(hub.dataDir)} if it should be running`,
    );
  return new HubNotRunningError(
    `The Hub is not running, or not answering, at ${hub.url} (${failure}). Start it with ${serveCommand(hub.dataDir)}.`,
    `the Hub for the data dir ${hub.dataDir} is not running, or not answering, at ${hub.url} (${failure})`,
    `start it with ${serveCommand(hub.dataDir)}`,
  );
}

/**
 * The Hub refused the key operator.key holds now. It read that file when it started, so the file
 * was replaced or edited since; the Hub's own sentence (send the contents of operator.key) is
 * what the CLI already did. Unreachable, so doctor still makes the checks it can without the Hub.
 */
function keyRefused(hub: HubTarget): HubUnreachableError {
  const file = join(hub.dataDir, OPERATOR_KEY_FILE);
  const found = `the Hub at ${hub.url} does not accept the operator key in ${file}: the file no longer holds the key this Hub started with (it was replaced or edited since)`;
  const fix = `restart the Hub (${serveCommand(hub.dataDir)}, or its service manager) so it reads operator.key again, or put back the key it started with`;
  return new HubUnreachableError(foundThenFix(found, fix), found, fix);
}

/**
 * verifyHub, then one warning line when the Hub recorded a version other than this CLI's: only
 * once the listener is known to be the Hub hub.json describes, since until then its version says
 * nothing about what answers.
 */
async function verifyAndCompare(hub: HubTarget): Promise<void> {
  await verifyHub(hub);
  const warning = versionSkewWarning(CIHUB_VERSION, hub.version);
  if (warning !== null) (hub.warn ?? writeErr)(`${warning}\n`);
}

export async function callHub<T>(hub: HubTarget, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T> {
  await (hub.verified ??= verifyAndCompare(hub));
  let res;
  try {
    res = await request(`${hub.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${hub.operatorKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      headersTimeout: HUB_CALL_TIMEOUT_MS,
      bodyTimeout: HUB_CALL_TIMEOUT_MS,
    });
  } catch (err) {
    if (isCallTimeout(err) && pidAlive(hub.pid)) throw new HubNotAnsweringError(hub, HUB_CALL_TIMEOUT_MS);
    throw callFailed(hub, describeCallFailure(err, HUB_CALL_TIMEOUT_MS));
  }
  const text = await res.body.text();
  let json: unknown = null;
  try {
    json = text === '' ? null : JSON.parse(text);
  } catch {
    throw new CliError(`The Hub at ${hub.url} answered ${method} ${path} with something that is not JSON (HTTP ${res.statusCode}).`);
  }
  if (res.statusCode >= 400) {
    const { said, hub: refused } = refusal(res.statusCode, json);
    if (refused.code === 'HUB_ERR_UNAUTHORIZED') throw keyRefused(hub);
    throw new CliError(`The Hub refused: ${said}.`, refused);
  }
  return json as T;
}
