/**
 * The GPU-pressure sampler (spec, "GPU pressure: a second load signal"). One reading every
 * 10 s, off the request path: ranking and the capabilities route read the band this keeps in
 * memory and never touch a file. It reads only while at least one peer is connected, because a
 * band only means something next to another node's; a Hub with no peer checks that one fact
 * per tick and reads nothing.
 *
 * Absent is not idle: the band is null until a source answers, and it goes back to null once
 * the last reading is more than two intervals old (no peer for a while, or the source went
 * away), the same age past which a container rollup is withheld. The next reading after that
 * starts the average afresh, as does a change of source, since two sources' figures are not
 * one series.
 */
import type { BackgroundHandle, BackgroundTask } from '../util/background.js';
import { elapsedMs, type Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { foldReading, type PressureBand, type PressureState } from './pressure-band.js';
import type { PressureReading, PressureSourceName } from './pressure-sources.js';

/** One reading every 10 s (spec). */
export const PRESSURE_SAMPLE_INTERVAL_MS = 10_000;
/** A band older than two intervals is no longer published: it describes a GPU as it was, not as it is. */
export const PRESSURE_STALE_AFTER_MS = 2 * PRESSURE_SAMPLE_INTERVAL_MS;

/** Schedules a task every `intervalMs` under an owner that catches and logs its failures (util/background.ts). */
export type Every = (name: string, intervalMs: number, task: BackgroundTask) => BackgroundHandle;

export interface PressureSamplerDeps {
  readonly clock: Clock;
  /** The sources in order (pressure-sources.ts); null when none answers. */
  readonly read: () => Promise<PressureReading | null>;
  /** Whether this Hub has at least one connected peer right now. */
  readonly peerConnected: () => boolean;
  readonly logger: Logger;
}

/** What status and doctor show about this node's own band. */
export interface LocalPressureView {
  /** The band this node advertises; null when it has none to advertise (unmeasured or stale). */
  readonly band: PressureBand | null;
  /** The smoothed busy percentage behind the band; null with it. */
  readonly smoothedPercent: number | null;
  /** Where the last reading came from; null when no source has answered. */
  readonly source: PressureSourceName | null;
  readonly path: string | null;
  /** Age of the last reading, ms; null when there has been none. */
  readonly sampledMsAgo: number | null;
  /** Whether the sampler reads at all right now (a peer is connected). */
  readonly sampling: boolean;
  /** Whether the last tick that read found no source (every source absent or unreadable). */
  readonly noSource: boolean;
}

export class PressureSampler {
  readonly #d: PressureSamplerDeps;
  #state: PressureState | null = null;
  #last: { readonly source: PressureSourceName; readonly path: string; readonly atMs: number } | null = null;
  #noSource = false;
  /** The source the last logged line named ('none' once nothing answered), so a change is logged once. */
  #logged: string | null = null;

  constructor(deps: PressureSamplerDeps) {
    this.#d = deps;
  }

  /** Starts the 10 s ticks under the given owner. */
  start(every: Every): BackgroundHandle {
    return every('gpu pressure sample', PRESSURE_SAMPLE_INTERVAL_MS, () => this.tick());
  }

  /** One tick: nothing at all without a connected peer; otherwise one reading folded into the band. */
  async tick(): Promise<void> {
    if (!this.#d.peerConnected()) return;
    const reading = await this.#d.read();
    const now = this.#d.clock.nowMs();
    if (reading === null) {
      this.#noSource = true;
      this.#note('none', 'GPU pressure: no source answers (no host file, no AMD gpu_busy_percent); this Hub advertises no band');
      return;
    }
    this.#noSource = false;
    const fresh = this.#last !== null && this.#last.source === reading.source && !this.#stale(now);
    this.#state = foldReading(fresh ? this.#state : null, reading.busyPercent);
    this.#last = { source: reading.source, path: reading.path, atMs: now };
    this.#note(reading.source, `GPU pressure: reading ${reading.path} (${reading.source})`);
  }

  /** The band to advertise and to rank this node on; null when unmeasured or stale. */
  band(): PressureBand | null {
    return this.#state === null || this.#stale(this.#d.clock.nowMs()) ? null : this.#state.band;
  }

  view(): LocalPressureView {
    const now = this.#d.clock.nowMs();
    const band = this.band();
    return {
      band,
      smoothedPercent: band === null || this.#state === null ? null : Math.round(this.#state.smoothed * 1000) / 10,
      source: this.#last?.source ?? null,
      path: this.#last?.path ?? null,
      sampledMsAgo: this.#last === null ? null : Math.max(0, now - this.#last.atMs),
      sampling: this.#d.peerConnected(),
      noSource: this.#noSource,
    };
  }

  /** A reading stamped ahead of now (the wall clock was set back) is stale: otherwise its band would be advertised for as long as the step (clock.ts, elapsedMs). */
  #stale(nowMs: number): boolean {
    return this.#last === null || elapsedMs(nowMs, this.#last.atMs) > PRESSURE_STALE_AFTER_MS;
  }

  #note(key: string, message: string): void {
    if (this.#logged === key) return;
    this.#logged = key;
    this.#d.logger.info({ source: key }, message);
  }
}
