/**
 * This node's hardware tier as the Hub holds it: detected once at start (hardware-probe.ts, in
 * the background), then read by the capabilities route, status and doctor. Until detection has
 * finished, and whenever it could not tell, the tier is null and is not advertised.
 */
import { decideTier, type DetectedGpu, type HardwareFacts, type HardwareTier, type TierDecision } from './hardware-tier.js';

/** What status and doctor show: the tier, and the facts it was decided from. */
export interface HardwareTierView {
  /** Whether detection has finished. */
  readonly detected: boolean;
  readonly tier: HardwareTier | null;
  /** Why tier is null once detection has finished; null otherwise. */
  readonly unknownBecause: string | null;
  readonly platform: string | null;
  readonly arch: string | null;
  /** Total system memory, bytes; null before detection. */
  readonly memoryBytes: number | null;
  /** GPUs found; null before detection or when detection could not tell. */
  readonly gpus: readonly DetectedGpu[] | null;
  /** The GPU memory the tier was judged on; null when none counted. */
  readonly gpuMemoryBytes: number | null;
}

export class HardwareReport {
  #facts: HardwareFacts | null = null;
  #decision: TierDecision | null = null;

  /** Runs detection and keeps what it found; never rejects (the probe answers records). */
  async detect(probe: () => Promise<HardwareFacts>): Promise<TierDecision> {
    const facts = await probe();
    this.#facts = facts;
    this.#decision = decideTier(facts);
    return this.#decision;
  }

  /** The tier to advertise; null before detection finished and when it could not tell. */
  tier(): HardwareTier | null {
    return this.#decision?.tier ?? null;
  }

  view(): HardwareTierView {
    const f = this.#facts;
    const d = this.#decision;
    return {
      detected: d !== null,
      tier: d?.tier ?? null,
      unknownBecause: d?.unknownBecause ?? null,
      platform: f?.platform ?? null,
      arch: f?.arch ?? null,
      memoryBytes: f?.memoryBytes ?? null,
      gpus: f?.gpus ?? null,
      gpuMemoryBytes: d?.gpuMemoryBytes ?? null,
    };
  }
}
