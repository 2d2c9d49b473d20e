/**
 * The few Docker Engine API calls the container counts need, over the Docker socket: the
 * containers of a compose project (by its label), one container's stats, and the compose
 * project of the container the Hub itself runs in. Answers are parsed with zod and bounded in
 * size; a failure is a record, never a throw.
 */
import { Agent, request } from '../util/undici-lean.js';
import { z } from 'zod';
import { parseJsonOrUndefined, readBounded } from '../util/bounded-read.js';
import type { DockerStats, ListedContainer } from './container-rollup.js';

/** Docker answers these from memory; a socket that takes longer is treated as not answering. */
export const DOCKER_CALL_TIMEOUT_MS = 5_000;
/** A container list past 4 MiB is not a home lab's compose project. */
const DOCKER_REPLY_MAX_BYTES = 4 * 1024 * 1024;
export const COMPOSE_PROJECT_LABEL = 'com.docker.compose.project';

/** More containers than a Docker list this Hub reads, or a peer's count it believes (peers/capabilities.ts). */
export const MAX_CONTAINERS = 10_000;
const LIST = z.array(z.object({ Id: z.string().max(128), State: z.string().max(32) })).max(MAX_CONTAINERS);
const INSPECT = z.object({ Config: z.object({ Labels: z.record(z.string()).nullable().optional() }).optional() });
const finite = z.number().finite().nonnegative();
const STATS = z.object({
  cpu_stats: z
    .object({
      cpu_usage: z.object({ total_usage: finite.optional(), percpu_usage: z.array(finite).max(4096).nullable().optional() }).optional(),
      system_cpu_usage: finite.optional(),
      online_cpus: z.number().int().min(1).max(4096).optional(),
    })
    .optional(),
  precpu_stats: z.object({ cpu_usage: z.object({ total_usage: finite.optional() }).optional(), system_cpu_usage: finite.optional() }).optional(),
  memory_stats: z.object({ usage: finite.optional(), stats: z.record(finite).optional() }).optional(),
});

export type DockerAnswer<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

export class DockerApi {
  readonly #agent: Agent;
  constructor(readonly socketPath: string) {
    this.#agent = new Agent({ connect: { socketPath } });
  }

  /** Every container (running or not) carrying the project's compose label. */
  async containers(project: string): Promise<DockerAnswer<ListedContainer[]>> {
    const filters = encodeURIComponent(JSON.stringify({ label: [`${COMPOSE_PROJECT_LABEL}=${project}`] }));
    const got = await this.#get(`/containers/json?all=true&filters=${filters}`, LIST);
    return got.ok ? { ok: true, value: got.value.map((c) => ({ id: c.Id, state: c.State })) } : got;
  }

  async stats(id: string): Promise<DockerAnswer<DockerStats>> {
    return this.#get(`/containers/${encodeURIComponent(id)}/stats?stream=false`, STATS);
  }

  /** The compose project of the container named `hostname` (Docker sets a container's hostname to its id); null when it has none. */
  async projectOf(hostname: string): Promise<DockerAnswer<string | null>> {
    const got = await this.#get(`/containers/${encodeURIComponent(hostname)}/json`, INSPECT);
    return got.ok ? { ok: true, value: got.value.Config?.Labels?.[COMPOSE_PROJECT_LABEL] ?? null } : got;
  }

  async close(): Promise<void> {
    await this.#agent.close();
  }

  async #get<T>(path: string, schema: z.ZodType<T>): Promise<DockerAnswer<T>> {
    try {
      const res = await request(`http://docker${path}`, {
        dispatcher: this.#agent,
        headersTimeout: DOCKER_CALL_TIMEOUT_MS,
        bodyTimeout: DOCKER_CALL_TIMEOUT_MS,
        signal: AbortSignal.timeout(DOCKER_CALL_TIMEOUT_MS),
      });
      const bytes = await readBounded(res.body, { maxBytes: DOCKER_REPLY_MAX_BYTES, timeoutMs: DOCKER_CALL_TIMEOUT_MS }, res.headers['content-length']);
      if (res.statusCode !== 200) return { ok: false, error: `Docker answered ${res.statusCode} to ${path.split('?')[0]}` };
      const parsed = schema.safeParse(parseJsonOrUndefined(bytes));
      return parsed.success ? { ok: true, value: parsed.data } : { ok: false, error: `Docker's answer to ${path.split('?')[0]} is not in the expected shape` };
    } catch (err) {
      return { ok: false, error: `the Docker socket ${this.socketPath} did not answer (${(err as Error).message})` };
    }
  }
}
