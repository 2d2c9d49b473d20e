/**
 * The processes the benchmark measures: the fake upstream, a Hub in front of it, nginx in front
 * of it (one worker, keep-alive upstream, no buffering) and a bare undici pass-through. Each is started here, in its
 * own process, and handed back with the pid(s) whose CPU time counts as that target's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { childPids } from './proc-stat.js';

const START_TIMEOUT_MS = 15_000;

export interface Started {
  readonly name: string;
  readonly child: ChildProcess;
  /** The process whose CPU time is this target's cost (nginx: its one worker). */
  readonly cpuPid: number;
  /** Base URL of its HTTP server. */
  readonly origin: string;
  /** Its stdout and stderr so far (a log file for nginx). */
  output(): string;
  stop(): Promise<void>;
}

function collectOutput(child: ChildProcess): () => string {
  let text = '';
  const keep = (d: Buffer) => {
    text += d.toString();
    if (text.length > 200_000) text = text.slice(-100_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return () => text;
}

function stopper(child: ChildProcess, signal: NodeJS.Signals): () => Promise<void> {
  return async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill(signal);
    const late = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(late);
  };
}

export async function freeLoopbackPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A Node script of ours that prints `listening <port>` once it accepts connections. */
async function startAnnouncingScript(name: string, script: string, args: readonly string[]): Promise<Started> {
  const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const output = collectOutput(child);
  const deadline = Date.now() + START_TIMEOUT_MS;
  let port: number | null = null;
  while (port === null && Date.now() < deadline && child.exitCode === null) {
    const m = /listening (\d+)/.exec(output());
    if (m) port = Number(m[1]);
    else await sleep(20);
  }
  if (port === null) {
    child.kill('SIGKILL');
    throw new Error(`${name} did not start:\n${output()}`);
  }
  return { name, child, cpuPid: child.pid!, origin: `http://127.0.0.1:${port}`, output, stop: stopper(child, 'SIGTERM') };
}

/** The fake engine (fake-upstream.js beside this file), on a port it picks and announces. */
export function startUpstream(script: string): Promise<Started> {
  return startAnnouncingScript('upstream', script, ['--port', '0']);
}

/** The bare undici pass-through (bare-proxy.js beside this file), the Node reference point. */
export function startBareProxy(script: string, upstreamOrigin: string): Promise<Started> {
  return startAnnouncingScript('undici-bare', script, ['--port', '0', '--upstream', upstreamOrigin]);
}

export interface HubStart {
  readonly repoRoot: string;
  readonly dataDir: string;
  readonly upstreamOrigin: string;
  /** Extra node flags (e.g. --cpu-prof) placed before bin/cihub. */
  readonly nodeArgs?: readonly string[];
  /** Variables for this Hub alone, set last (e.g. an allocator to compare: LD_PRELOAD, MALLOC_CONF). */
  readonly env?: Readonly<Record<string, string>>;
}

/** A Hub (`bin/cihub serve`) whose only engine is the fake upstream, registered as llama.cpp. */
export async function startHub(opts: HubStart): Promise<Started & { operatorKey: string }> {
  const bin = join(opts.repoRoot, 'bin/cihub');
  const env: NodeJS.ProcessEnv = { ...process.env, OLLAMA_URL: '', VLLM_URL: '', LEMONADE_URL: '', OMLX_URL: '', LLAMACPP_URL: opts.upstreamOrigin };
  for (const key of Object.keys(env)) if (key.startsWith('HUB_') || key === 'API_PORT' || key === 'CIHUB_DATA_DIR') delete env[key];
  Object.assign(env, opts.env);
  const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), bin, 'serve', '--port', '0', '--host', '127.0.0.1', '--data-dir', opts.dataDir], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = collectOutput(child);
  const infoPath = join(opts.dataDir, 'hub.json');
  const deadline = Date.now() + START_TIMEOUT_MS;
  let url: string | null = null;
  while (url === null && Date.now() < deadline && child.exitCode === null) {
    if (existsSync(infoPath)) {
      const info = JSON.parse(readFileSync(infoPath, 'utf8')) as { url: string; pid: number };
      if (info.pid === child.pid) url = info.url;
    }
    if (url === null) await sleep(25);
  }
  if (url === null) {
    child.kill('SIGKILL');
    throw new Error(`the Hub did not start within ${START_TIMEOUT_MS} ms:\n${output()}`);
  }
  const operatorKey = readFileSync(join(opts.dataDir, 'operator.key'), 'utf8').trim();
  return { name: 'hub', child, cpuPid: child.pid!, origin: url, output, operatorKey, stop: stopper(child, 'SIGTERM') };
}

/** nginx.conf for the benchmark: every path it needs lives in `dir`. */
export function nginxConfig(dir: string, port: number, upstreamOrigin: string): string {
  const upstream = upstreamOrigin.replace(/^http:\/\//, '');
  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  return `# Generated by bench/proxy-overhead/run.ts; deleted with its temp dir.
${asRoot ? 'user root;\n' : ''}# One worker: the Hub is one Node process, so one nginx worker is the like-for-like limit.
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  upstream bench_upstream {
    server ${upstream};
    keepalive 64;
    keepalive_requests 1000000;
    keepalive_timeout 120s;
  }
  server {
    listen 127.0.0.1:${port};
    # The Hub and the load generators keep a connection for any number of requests; so does nginx here.
    keepalive_requests 1000000;
    keepalive_timeout 120s;
    location /api/inference/pool/v1/ {
      proxy_pass http://bench_upstream/v1/;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
      proxy_request_buffering off;
    }
  }
}
`;
}

/** nginx in the foreground under the current user, with its pid file, logs and temp files in `dir`. */
export async function startNginx(dir: string, upstreamOrigin: string): Promise<Started> {
  mkdirSync(dir, { recursive: true });
  const port = await freeLoopbackPort();
  const conf = join(dir, 'nginx.conf');
  writeFileSync(conf, nginxConfig(dir, port, upstreamOrigin));
  const child = spawn('nginx', ['-c', conf, '-p', dir, '-e', join(dir, 'error.log'), '-g', 'daemon off;'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const spawned = collectOutput(child);
  const output = () => spawned() + (existsSync(join(dir, 'error.log')) ? readFileSync(join(dir, 'error.log'), 'utf8') : '');
  const origin = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + START_TIMEOUT_MS;
  let worker: number | null = null;
  while (worker === null && Date.now() < deadline && child.exitCode === null) {
    try {
      const res = await request(`${origin}/api/inference/pool/v1/models`);
      await res.body.dump();
      const workers = childPids(child.pid!);
      if (workers.length === 1) worker = workers[0]!;
    } catch {
      // not listening yet
    }
    if (worker === null) await sleep(25);
  }
  if (worker === null) {
    child.kill('SIGKILL');
    throw new Error(`nginx did not start with exactly one worker:\n${output()}`);
  }
  // SIGQUIT: graceful shutdown of master and worker.
  return { name: 'nginx', child, cpuPid: worker, origin, output, stop: stopper(child, 'SIGQUIT') };
}
