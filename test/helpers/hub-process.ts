/**
 * Starts a real Hub process (`bin/cihub serve`) on a loopback port for integration tests, in
 * a fresh data dir, and finds it the way the CLI does: through hub.json. Engine URLs the test
 * does not give are switched off, so no test depends on what happens to listen on this machine.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, existsSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { scaled } from './time-scale.js';
import { scratchDir, writesIntoScratch } from './scratch-dir.js';
import { freeLoopbackPort } from '../../src/util/free-port.js';

export const REPO_ROOT = resolve(import.meta.dirname, '../../..');
export const CIHUB_BIN = join(REPO_ROOT, 'bin/cihub');

const ENGINES_OFF = { OLLAMA_URL: '', VLLM_URL: '', LEMONADE_URL: '', OMLX_URL: '', LLAMACPP_URL: '' };
/** A bound on a Hub that never comes up, not a target: starting takes about a second on an idle machine. */
const START_TIMEOUT_MS = scaled(60_000);

/** A Hub that exited or timed out before it wrote hub.json; `output` is what it printed. */
export class HubStartError extends Error {
  constructor(
    what: string,
    readonly output: string,
  ) {
    super(`hub ${what}; output:\n${output}`);
  }
}

export interface HubProcess {
  readonly url: string;
  /** The proxy base: `${url}/api/inference/pool`. */
  readonly pool: string;
  readonly dataDir: string;
  readonly operatorKey: string;
  readonly child: ChildProcess;
  /** Everything the Hub wrote to stdout (its JSON log lines). */
  log(): string;
  /** An operator-authenticated call; returns status and parsed JSON. */
  api<T = unknown>(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; json: T; headers: Record<string, unknown> }>;
  /** Sends a signal and waits for the process to exit; resolves with its exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * PATH for a test Hub: the runner's PATH without any directory holding a `tailscale`, so a Hub
 * that is not given a fake never runs the host's real Tailscale (it would publish itself with
 * Serve there). A test that wants Tailscale passes its own PATH with a fake first.
 */
export function pathWithoutTailscale(): string {
  return (process.env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => dir !== '' && !existsSync(join(dir, 'tailscale')))
    .join(delimiter);
}

/** An empty data dir under the system's temporary directory, removed when the test process exits (./scratch-dir.ts). */
export function freshDataDir(): string {
  return scratchDir('cihub-test-');
}

export interface StartHubOptions {
  env?: Record<string, string>;
  dataDir?: string;
  port?: number;
  /** The address to listen on (`--host`); loopback unless a test is about HUB_HOST itself. */
  host?: string;
  /** Run the Hub as this user (the test must be root to ask): file permissions bind it, as they do not bind root. */
  user?: { uid: number; gid: number };
  /** Options for node itself, ahead of the Hub's script (V8 flags a test must pin). */
  nodeArgs?: readonly string[];
  /**
   * A command the Hub's node is run by (it execs its arguments, so the Hub keeps its pid), such
   * as `unshare --net` for a network of its own; the test then reaches the Hub through its CLI.
   */
  launcher?: readonly string[];
}

export async function startHubProcess(opts: StartHubOptions = {}): Promise<HubProcess> {
  const dataDir = opts.dataDir ?? freshDataDir();
  const node = [
    process.execPath,
    ...(opts.nodeArgs ?? []),
    CIHUB_BIN,
    'serve',
    '--port',
    String(opts.port ?? 0),
    '--host',
    opts.host ?? '127.0.0.1',
    '--data-dir',
    dataDir,
  ];
  const command = [...(opts.launcher ?? []), ...node];
  const child = spawn(command[0]!, command.slice(1), {
    env: { PATH: pathWithoutTailscale(), HOME: process.env.HOME ?? dataDir, ...ENGINES_OFF, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(opts.user ? { uid: opts.user.uid, gid: opts.user.gid } : {}),
  });
  writesIntoScratch(child);
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((res) => child.once('exit', (code) => res(code)));

  const infoPath = join(dataDir, 'hub.json');
  const deadline = Date.now() + START_TIMEOUT_MS;
  let url: string | null = null;
  while (Date.now() < deadline && child.exitCode === null) {
    if (existsSync(infoPath)) {
      const info = JSON.parse(readFileSync(infoPath, 'utf8')) as { url: string; pid: number };
      if (info.pid === child.pid) {
        url = info.url;
        break;
      }
    }
    await sleep(25);
  }
  if (url === null) {
    const code = child.exitCode;
    child.kill('SIGKILL');
    throw new HubStartError(code === null ? `did not start within ${START_TIMEOUT_MS} ms` : `exited with code ${code} before it started`, output);
  }
  const operatorKey = readFileSync(join(dataDir, 'operator.key'), 'utf8').trim();
  const hubUrl = url;
  return {
    url: hubUrl,
    pool: `${hubUrl}/api/inference/pool`,
    dataDir,
    operatorKey,
    child,
    log: () => output,
    async api(method, path, body, headers = {}) {
      const res = await request(`${hubUrl}${path}`, {
        method: method as 'GET',
        headers: { authorization: `Bearer ${operatorKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });
      const text = await res.body.text();
      let json: unknown = null;
      try {
        json = text ? JSON.parse(text) : null;
      } catch {
        json = text;
      }
      return { status: res.statusCode, json: json as never, headers: res.headers };
    },
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null) return child.exitCode;
      child.kill(signal);
      return exited;
    },
  };
}

/** Runs the CLI to completion; resolves with its exit code and output. */
export function runCli(
  args: readonly string[],
  /** dataDir is HOME, and is passed as --data-dir unless dataDirFlag is false (demo, dev and completion refuse it). */
  opts: {
    dataDir: string;
    dataDirFlag?: boolean;
    env?: Record<string, string>;
    input?: string;
    /** A command the CLI's node is run by, as StartHubOptions.launcher (`nsenter` into a Hub's network). */
    launcher?: readonly string[];
  },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolveRun) => {
    const command = [...(opts.launcher ?? []), process.execPath, CIHUB_BIN, ...(opts.dataDirFlag === false ? [] : ['--data-dir', opts.dataDir]), ...args];
    const child = spawn(command[0]!, command.slice(1), {
      env: { PATH: process.env.PATH ?? '', HOME: opts.dataDir, ...opts.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdin.end(opts.input ?? '');
    child.once('close', (code) => resolveRun({ code, stdout, stderr }));
  });
}

/**
 * Below this a deadline given to eventually() is raised to it: a deadline only bounds how long a
 * broken Hub can hold the run (the wait ends at the event), and a tight one cancelled tests
 * whenever another process loaded both cores (issue 9, item 21).
 */
export const EVENTUALLY_FLOOR_MS = 15_000;

/**
 * Waits until `check` returns a truthy value, polling; throws with `what` after the deadline:
 * `timeoutMs` (at least EVENTUALLY_FLOOR_MS) stretched by HUB_TEST_TIME_SCALE.
 */
export async function eventually<T>(
  check: () => Promise<T | null | undefined | false> | T | null | undefined | false,
  what: string,
  timeoutMs = EVENTUALLY_FLOOR_MS,
): Promise<T> {
  const deadline = Date.now() + scaled(Math.max(timeoutMs, EVENTUALLY_FLOOR_MS));
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** A loopback port that was free a moment ago, below the kernel's own range (src/util/free-port.ts says why). */
export const freePort = (): Promise<number> => freeLoopbackPort();

/** The messages of a Hub's JSON log lines, in the order it wrote them. */
export function logMessages(log: string): string[] {
  return log
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => (JSON.parse(line) as { msg: string }).msg);
}

/** True when a Hub failed to start because its --port was taken (serve's one-sentence refusal). */
export function isPortTaken(err: unknown): boolean {
  return err instanceof HubStartError && /^Port \d+ on \S+ is already in use/m.test(err.output);
}
