/**
 * The Hub's Prometheus metrics, one set per Hub so several Hubs in one process (the demo, tests)
 * never share counters. Request counts and latencies are counted as each routing-log row settles
 * (request-metrics.ts), in plain tallies; the prom-client registry that renders them with the
 * process metrics and the gauges is built on the first scrape (prom-registry.ts), so a Hub that
 * nothing scrapes never loads prom-client. Loading it lazily took a lone idle Hub from 82.6 to
 * 78.8 MiB of RSS (median of five; bench/README.md, 2026-12-02 08:06).
 *
 * Names follow Prometheus conventions: a `cihub_` prefix, base units in the name (`_seconds`),
 * `_total` on counters.
 */
import type { Registry } from 'prom-client';
import { RequestMetrics, type SettledRow } from './request-metrics.js';

export interface MetricsSources {
  /** In-flight counts by key: a local engine id or a peer's name. */
  inFlight(): ReadonlyMap<string, number>;
  /** This node's engine ids, to tell an engine key from a peer key. */
  engineIds(): ReadonlySet<string>;
  /** Engines that have answered at least one probe. */
  engines(): ReadonlyArray<{ readonly id: string; readonly kind: string; readonly healthy: boolean }>;
  peers(): ReadonlyArray<{ readonly name: string; readonly status: string; readonly enabled: boolean }>;
  /** Withheld engine/model pairs by why: output faults, or a model the engine cannot serve. */
  withheld(): ReadonlyArray<{ readonly book: 'output_fault' | 'unservable'; readonly key: string }>;
  /** Connections the HTTP server holds open now, the scrape's own included. */
  openConnections(): Promise<number>;
}

export class HubMetrics {
  readonly #sources: MetricsSources;
  readonly #requests = new RequestMetrics();
  #connectionsDropped = 0;
  /** Where a registry built at start-up would have started counting CPU. */
  readonly #cpuAtStart = process.cpuUsage();
  /** null until the first scrape asks for it. */
  #registry: Promise<Registry> | null = null;

  constructor(sources: MetricsSources) {
    this.#sources = sources;
  }

  /** Called once per row, by the routing log, when the row settles. */
  onSettle(row: SettledRow): void {
    this.#requests.record(row);
  }

  /** Called by the HTTP server for each connection it turned away at its ceiling. */
  onConnectionDropped(): void {
    this.#connectionsDropped += 1;
  }

  async text(): Promise<{ contentType: string; body: string }> {
    const registry = await this.#registryOnce();
    return { contentType: registry.contentType, body: await registry.metrics() };
  }

  #registryOnce(): Promise<Registry> {
    this.#registry ??= import('./prom-registry.js')
      .then((m) => m.buildPromRegistry(this.#sources, this.#requests, this.#cpuAtStart, () => this.#connectionsDropped))
      .catch((err: unknown) => {
        // A registry that failed to build is tried again on the next scrape, not remembered.
        this.#registry = null;
        throw err;
      });
    return this.#registry;
  }
}
