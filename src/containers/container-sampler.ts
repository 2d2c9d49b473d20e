/**
 * Collects this Hub's container counts once a minute from the Docker socket, off every request
 * and poll path: GET /capabilities only reads the last collection (spec, "Container counts":
 * a Docker fan-out on the poll path is how a healthy node gets marked unreachable). The
 * projects counted are HUB_COMPOSE_PROJECTS, or else the compose project of the container the
 * Hub runs in. With no socket or no project, nothing is collected and nothing is published.
 */
import type { Logger } from 'pino';
import type { ContainerRollup } from '../peers/capabilities.js';
import type { Background } from '../util/background.js';
import type { Clock } from '../util/clock.js';
import {
  CONTAINER_SAMPLE_INTERVAL_MS,
  implausibleTotals,
  publishedRollup,
  rollupOf,
  usageOf,
  type ContainerSample,
  type ContainerUsage,
  type ListedContainer,
} from './container-rollup.js';
import type { DockerApi } from './docker-api.js';

/**
 * Stats calls in flight at once. Each can take a second while Docker reads two CPU samples, so
 * at 8 one interval reads about 480 running containers; at 4 it read about 240.
 */
const STATS_CONCURRENCY = 8;
/**
 * How long one collection may spend: one interval, when the next is due (a tick is skipped
 * while one runs). CPU and memory are summed over every running container or not stated: the
 * wire has no field for how many containers the sums cover, so sums over the first 200 of more
 * read as the whole project's. A collection out of time fails instead, and the rollup is left
 * out ("not reported") once the last complete one is two intervals old.
 */
const STATS_READ_BUDGET_MS = CONTAINER_SAMPLE_INTERVAL_MS;

/** What this Hub knows of its own containers, for status and doctor. */
export interface ContainerReport {
  /** The Docker socket sampled; null when none is mounted. */
  readonly socket: string | null;
  /** The compose projects counted; null while they are not known. */
  readonly projects: readonly string[] | null;
  /** Whether poolShareContainerStats lets peers see the counts. */
  readonly shared: boolean;
  /** The last collection while it is fresh (two intervals); null otherwise: not measured, never zeros. */
  readonly rollup: ContainerRollup | null;
  readonly sampledAt: string | null;
  /** Why the last collection failed, or why none runs; null after a success. */
  readonly problem: string | null;
}

export interface ContainerSamplerDeps {
  readonly docker: DockerApi | null;
  /** HUB_COMPOSE_PROJECTS; null: the project of the Hub's own container. */
  readonly projects: readonly string[] | null;
  /** This machine's hostname: inside a container, Docker sets it to the container id. */
  readonly hostname: string;
  readonly shared: () => boolean;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly background: Background;
}

export class ContainerSampler {
  readonly #d: ContainerSamplerDeps;
  #projects: readonly string[] | null;
  #sample: ContainerSample | null = null;
  #problem: string | null;

  constructor(deps: ContainerSamplerDeps) {
    this.#d = deps;
    this.#projects = deps.projects;
    this.#problem = deps.docker === null ? 'no Docker socket is mounted' : null;
  }

  start(): void {
    if (this.#d.docker === null) return;
    this.#d.background.run('container counts', () => this.collect());
    this.#d.background.every('container counts', CONTAINER_SAMPLE_INTERVAL_MS, () => this.collect());
  }

  /** One collection; keeps the previous sample (to age out) when it fails. */
  async collect(): Promise<void> {
    const docker = this.#d.docker;
    if (docker === null) return;
    const startedMs = this.#d.clock.nowMs();
    const projects = await this.#knownProjects(docker);
    if (projects === null) return;
    const listed: ListedContainer[] = [];
    for (const project of projects) {
      const got = await docker.containers(project);
      if (!got.ok) return this.#fail(got.error);
      listed.push(...got.value);
    }
    const running = listed.filter((c) => c.state === 'running');
    const usage: ContainerUsage[] = [];
    for (let i = 0; i < running.length; i += STATS_CONCURRENCY) {
      if (this.#d.clock.nowMs() - startedMs >= STATS_READ_BUDGET_MS) {
        return this.#fail(
          `read the stats of ${i} of ${running.length} running containers in ${STATS_READ_BUDGET_MS / 1000} s; CPU and memory are stated only when every running container is read`,
        );
      }
      const batch = await Promise.all(running.slice(i, i + STATS_CONCURRENCY).map((c) => docker.stats(c.id)));
      for (const s of batch) {
        if (!s.ok) return this.#fail(s.error);
        const read = usageOf(s.value);
        if (read === null)
          return this.#fail(
            'Docker answered the stats of a running container without a CPU or memory reading; CPU and memory are stated only when every running container is read',
          );
        usage.push(read);
      }
    }
    const rollup = rollupOf(listed, usage);
    const implausible = implausibleTotals(rollup);
    if (implausible !== null) return this.#fail(`${implausible}; CPU and memory are not stated`);
    this.#sample = { rollup, atMs: this.#d.clock.nowMs() };
    this.#problem = null;
  }

  /** What GET /capabilities publishes: fresh, shared, or nothing. */
  published(): ContainerRollup | null {
    return publishedRollup(this.#sample, this.#d.clock.nowMs(), this.#d.shared());
  }

  report(): ContainerReport {
    return {
      socket: this.#d.docker?.socketPath ?? null,
      projects: this.#projects,
      shared: this.#d.shared(),
      rollup: publishedRollup(this.#sample, this.#d.clock.nowMs(), true),
      sampledAt: this.#sample === null ? null : new Date(this.#sample.atMs).toISOString(),
      problem: this.#problem,
    };
  }

  async #knownProjects(docker: DockerApi): Promise<readonly string[] | null> {
    if (this.#projects !== null) return this.#projects;
    const own = await docker.projectOf(this.#d.hostname);
    if (!own.ok || own.value === null) {
      this.#problem = own.ok
        ? 'the Hub does not run in a compose project and HUB_COMPOSE_PROJECTS is not set'
        : `the Hub's own container was not found (${own.error}); set HUB_COMPOSE_PROJECTS to name the compose projects to count`;
      return null;
    }
    this.#projects = [own.value];
    return this.#projects;
  }

  #fail(error: string): void {
    if (this.#problem !== error) this.#d.logger.warn({ error }, 'container counts not collected');
    this.#problem = error;
  }
}
