/**
 * The tools the chaos tests break things with, all on loopback and all real processes or
 * sockets: a TCP relay between two Hubs that can be cut and restored (a partition and its
 * healing), a simulated engine in its own process (so it can be killed with SIGKILL), and the
 * read of every in-flight counter and queue depth a Hub's status reports. The mixed run's seeded
 * random source is src/llama/prng.ts's mulberry32, so a failing run can be replayed.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { request } from 'undici';
import type { PoolStatus } from '../../src/status/pool-status.js';
import type { SimFault, SimState } from '../../src/sim/types.js';
import { CIHUB_BIN, eventually } from './hub-process.js';

/**
 * A TCP relay on a loopback port in front of `targetPort`. cut() resets every connection it
 * carries and every new one until restore(): to the Hub dialling through it, the peer has
 * dropped off the network, while both processes keep running.
 */
export class TcpRelay {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  #targetPort: number;
  #cut = false;
  /** Connections accepted since start, cut or not: proof that traffic went through the relay. */
  accepted = 0;

  private constructor(server: Server, targetPort: number) {
    this.#server = server;
    this.#targetPort = targetPort;
  }

  static async start(targetPort: number): Promise<TcpRelay> {
    const server = createServer();
    const relay = new TcpRelay(server, targetPort);
    server.on('connection', (client) => relay.#carry(client));
    await new Promise<void>((res, rej) => {
      server.once('error', rej);
      server.listen(0, '127.0.0.1', () => res());
    });
    return relay;
  }

  get port(): number {
    return (this.#server.address() as { port: number }).port;
  }

  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Points the relay at another port (a Hub restarted elsewhere); open connections stay as they are. */
  retarget(port: number): void {
    this.#targetPort = port;
  }

  cut(): void {
    this.#cut = true;
    for (const s of this.#sockets) s.resetAndDestroy();
    this.#sockets.clear();
  }

  restore(): void {
    this.#cut = false;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((res) => this.#server.close(() => res()));
  }

  #carry(client: Socket): void {
    this.accepted++;
    if (this.#cut) {
      client.resetAndDestroy();
      return;
    }
    const upstream = connect(this.#targetPort, '127.0.0.1');
    this.#sockets.add(client);
    this.#sockets.add(upstream);
    const drop = () => {
      this.#sockets.delete(client);
      this.#sockets.delete(upstream);
      if (!client.destroyed) client.destroy();
      if (!upstream.destroyed) upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  }
}

/**
 * A simulated engine run as its own process (`cihub dev engine`), so a test can kill it with
 * SIGKILL and start it again on the same port. Faults and state go through its /__sim routes.
 */
export class EngineProcess {
  readonly port: number;
  readonly #args: string[];
  #child: ChildProcess | null = null;
  #output = '';

  constructor(port: number, opts: { dialect: 'ollama' | 'vllm'; models: readonly string[]; decodeTps?: number; timeScale?: number }) {
    this.port = port;
    this.#args = [
      CIHUB_BIN,
      'dev',
      'engine',
      '--port',
      String(port),
      '--dialect',
      opts.dialect,
      '--model',
      opts.models.join(','),
      '--time-scale',
      String(opts.timeScale ?? 0.01),
      ...(opts.decodeTps === undefined ? [] : ['--decode-tps', String(opts.decodeTps)]),
    ];
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get alive(): boolean {
    return this.#child !== null && this.#child.exitCode === null && this.#child.signalCode === null;
  }

  output(): string {
    return this.#output;
  }

  /** Starts the process and waits until it says where it listens. */
  async start(): Promise<void> {
    const child = spawn(process.execPath, this.#args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.#child = child;
    child.stdout!.on('data', (d: Buffer) => (this.#output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (this.#output += d.toString()));
    await eventually(() => this.#output.includes('listening on') || child.exitCode !== null, `the engine on port ${this.port} to listen`);
    if (child.exitCode !== null) throw new Error(`the engine on port ${this.port} exited: ${this.#output}`);
  }

  /** SIGKILL: the engine vanishes mid-whatever, as a crashed engine does. Resolves once it is gone. */
  async kill(): Promise<void> {
    const child = this.#child;
    if (child === null || child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise<void>((res) => child.once('exit', () => res()));
    child.kill('SIGKILL');
    await gone;
  }

  async state(): Promise<SimState> {
    const res = await request(`${this.url}/__sim/state`);
    return (await res.body.json()) as SimState;
  }

  async setFault(fault: SimFault): Promise<void> {
    const res = await request(`${this.url}/__sim/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(fault) });
    await res.body.text();
    if (res.statusCode !== 200) throw new Error(`fault refused: ${res.statusCode}`);
  }
}

/**
 * Every in-flight counter and queue depth a Hub's status reports that is not zero, named, so a
 * leak reads as `backend ollama inFlight=1`. Empty when the Hub holds nothing.
 */
export function heldCounters(status: PoolStatus): string[] {
  const held: string[] = [];
  if (status.localNode.queueDepth !== 0) held.push(`localNode queueDepth=${status.localNode.queueDepth}`);
  for (const b of status.localNode.backends) {
    if (b.inFlight !== 0) held.push(`backend ${b.id} inFlight=${b.inFlight}`);
    if (b.queueDepth !== 0) held.push(`backend ${b.id} queueDepth=${b.queueDepth}`);
  }
  for (const p of status.peers) {
    if (p.forwardedInFlight !== 0) held.push(`peer ${p.nodeFqdn} forwardedInFlight=${p.forwardedInFlight}`);
  }
  return held;
}

/** A filesystem mounted for one test as the Hub's data dir; needs root (CI runs as root). */
export interface TestMount {
  /** An empty directory on the mount, for the data dir. */
  readonly dataDir: string;
  /** Unmounts (lazily, if something still holds it) and removes what the mount was made of. */
  unmount(): void;
}

function needRoot(what: string): void {
  if (process.getuid?.() !== 0) throw new Error(`${what} needs root (mount); run the chaos tests as root, as CI does`);
}

/** A tmpfs of `sizeBytes`: a disk that fills up as soon as a test wants it to. */
export function mountTmpfs(sizeBytes: number): TestMount {
  needRoot('a small disk');
  const mountPoint = mkdtempSync(join(tmpdir(), 'cihub-chaos-tmpfs-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeBytes},mode=0700`, 'tmpfs', mountPoint]);
  const dataDir = join(mountPoint, 'data');
  mkdirSync(dataDir, { mode: 0o700 });
  return {
    dataDir,
    unmount() {
      execFileSync('umount', ['-l', mountPoint]);
      rmSync(mountPoint, { recursive: true, force: true });
    },
  };
}

/**
 * An ext4 filesystem on a loop device, mounted with errors=remount-ro. failFilesystem() makes
 * the kernel record a filesystem error, and the kernel remounts it read-only under whatever
 * holds it open: how a real disk turns read-only under a running Hub. (A plain `mount -o
 * remount,ro` is refused while any file on it is open for writing, as the Hub's are.)
 */
export function mountExt4Loop(sizeBytes: number): TestMount & { failFilesystem(): void; remount(): void } {
  needRoot('a loop-mounted disk');
  const work = mkdtempSync(join(tmpdir(), 'cihub-chaos-ext4-'));
  const image = join(work, 'disk.img');
  const mountPoint = join(work, 'mnt');
  mkdirSync(mountPoint);
  writeFileSync(image, '');
  truncateSync(image, sizeBytes);
  execFileSync('mkfs.ext4', ['-q', '-F', image]);
  const mount = () => execFileSync('mount', ['-o', 'loop,errors=remount-ro', image, mountPoint]);
  mount();
  const dataDir = join(mountPoint, 'data');
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const device = () => basename(execFileSync('findmnt', ['-n', '-o', 'SOURCE', mountPoint], { encoding: 'utf8' }).trim());
  return {
    dataDir,
    failFilesystem() {
      writeFileSync(`/sys/fs/ext4/${device()}/trigger_fs_error`, '1');
    },
    /** Unmounts, repairs and mounts the filesystem again: what an operator does once the disk is back. */
    remount() {
      execFileSync('umount', [mountPoint]);
      // e2fsck exits 1 or 2 when it corrected errors, which after a recorded error it will have.
      const fsck = spawnSync('e2fsck', ['-p', '-f', image], { stdio: 'ignore' });
      if (fsck.status === null || fsck.status > 2) throw new Error(`e2fsck could not repair the test disk (exit ${fsck.status})`);
      mount();
    },
    unmount() {
      execFileSync('umount', ['-l', mountPoint]);
      rmSync(work, { recursive: true, force: true });
    },
  };
}

/** True when the filesystem holding `path` is mounted read-only now. */
export function mountedReadOnly(path: string): boolean {
  const options = execFileSync('findmnt', ['-n', '-o', 'OPTIONS', '--target', path], { encoding: 'utf8' }).trim().split(',');
  return options.includes('ro') || options.includes('emergency_ro');
}
