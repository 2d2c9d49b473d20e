/** MetricsSources for tests of the metrics themselves: a Hub with no engines, peers or work, and the scrape's connection only. */
import type { MetricsSources } from './hub-metrics.js';

export const NO_SOURCES: MetricsSources = {
  inFlight: () => new Map(),
  engineIds: () => new Set(),
  engines: () => [],
  peers: () => [],
  withheld: () => [],
  openConnections: async () => 1,
};
