/**
 * A fake Docker daemon on a unix socket in the test's own process, for the container counts.
 * It answers the three Engine API routes a Hub calls (src/containers/docker-api.ts): the
 * container list with Docker's label filter applied, one container's stats, and the inspect
 * of the container named after this machine's hostname, which Docker answers for the container
 * a process runs in. `hang()` turns it into a daemon that accepts every request and never
 * answers, recording each one and whether the Hub gave it up.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';

export const COMPOSE_LABEL = 'com.docker.compose.project';

/** Every container the fake holds: four of the compose project "lab", one of "other", one started by hand. */
export const FAKE_CONTAINERS = [
  { Id: 'web1', State: 'running', Labels: { [COMPOSE_LABEL]: 'lab' } },
  { Id: 'db1', State: 'running', Labels: { [COMPOSE_LABEL]: 'lab' } },
  { Id: 'job1', State: 'exited', Labels: { [COMPOSE_LABEL]: 'lab' } },
  { Id: 'cache1', State: 'paused', Labels: { [COMPOSE_LABEL]: 'lab' } },
  { Id: 'other1', State: 'running', Labels: { [COMPOSE_LABEL]: 'other' } },
  { Id: 'byhand', State: 'running', Labels: {} },
] as const;

/** Every container's stats: one core busy (a quarter of four) and 800 bytes in use past the page cache. */
export const FAKE_STATS = {
  cpu_stats: { cpu_usage: { total_usage: 2_000 }, system_cpu_usage: 10_000, online_cpus: 4 },
  precpu_stats: { cpu_usage: { total_usage: 1_000 }, system_cpu_usage: 6_000 },
  memory_stats: { usage: 1_000, stats: { inactive_file: 200 } },
};

/** The counts of project "lab" from the fake's answers: its two running containers' stats add up. */
export const LAB_COUNTS = { running: 2, stopped: 2, total: 4, cpuPercent: 200, memoryBytes: 1_600 };

/** A request received after `hang()`: its path and whether the Hub has given it up. */
export interface HeldDockerRequest {
  readonly path: string;
  closed: boolean;
}

export interface FakeDocker {
  /** The socket to hand a Hub as HUB_DOCKER_SOCKET. */
  readonly socket: string;
  /** From now on, accept every request and never answer it. */
  hang(): void;
  /** The requests received since `hang()`, in order. */
  readonly held: readonly HeldDockerRequest[];
  /** Stops listening, drops the held requests and removes the socket's directory. */
  close(): Promise<void>;
}

/** A container as the fake holds it: Docker's list fields the Hub reads, and its labels. */
export interface FakeContainer {
  readonly Id: string;
  readonly State: string;
  readonly Labels: Readonly<Record<string, string>>;
}

export interface FakeDockerOptions {
  /** The containers the daemon holds; FAKE_CONTAINERS unless given. */
  readonly containers?: readonly FakeContainer[];
  /** The stats answer every container gives; FAKE_STATS unless given. */
  readonly stats?: unknown;
  /** Called with a container's id as each stats request arrives, before it is answered. */
  readonly onStats?: (id: string) => void;
}

function labelled(all: readonly FakeContainer[], labels: readonly string[]) {
  return all.filter((c) =>
    labels.every((l) => {
      const [k, v] = l.split('=');
      return c.Labels[k!] === v;
    }),
  );
}

/** Starts the fake on a socket in a fresh temporary directory. */
export function startFakeDocker(opts: FakeDockerOptions = {}): Promise<FakeDocker> {
  const containers = opts.containers ?? FAKE_CONTAINERS;
  const dir = mkdtempSync(join(tmpdir(), 'cihub-docker-'));
  const socket = join(dir, 'docker.sock');
  let hanging = false;
  const held: HeldDockerRequest[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://docker');
    if (hanging) {
      const entry = { path: url.pathname, closed: false };
      held.push(entry);
      res.on('close', () => (entry.closed = true));
      return;
    }
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (url.pathname === '/containers/json') {
      const labels = (JSON.parse(url.searchParams.get('filters') ?? '{}') as { label?: string[] }).label ?? [];
      return json(200, labelled(containers, labels));
    }
    const stats = /^\/containers\/([^/]+)\/stats$/.exec(url.pathname);
    if (stats) {
      opts.onStats?.(stats[1]!);
      return containers.some((c) => c.Id === stats[1]) ? json(200, opts.stats ?? FAKE_STATS) : json(404, { message: 'No such container' });
    }
    if (url.pathname === `/containers/${hostname()}/json`) return json(200, { Id: 'self', Config: { Labels: { [COMPOSE_LABEL]: 'lab' } } });
    return json(404, { message: 'page not found' });
  });
  const close = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  };
  return new Promise((resolve) => server.listen(socket, () => resolve({ socket, hang: () => (hanging = true), held, close })));
}
