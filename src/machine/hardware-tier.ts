/**
 * This node's hardware tier from what detection found (docs/hardware-tier.md gives the rule and
 * why each threshold sits where it does). Pure: hardware-probe.ts gathers the facts.
 *
 * The tier is published as hardwareTier in the capabilities document. Peers break queue-depth
 * ties on it, and the throughput step defers an unmeasured cpu-only or insufficient peer behind
 * other unmeasured peers for a large prompt. It is a prior, not a measurement, so a machine
 * whose GPU cannot be sized gets no tier at all rather than a guessed one.
 */

export const HARDWARE_TIERS = ['high-end', 'mid-range', 'cpu-only', 'insufficient'] as const;
export type HardwareTier = (typeof HARDWARE_TIERS)[number];

export function isHardwareTier(value: unknown): value is HardwareTier {
  return typeof value === 'string' && (HARDWARE_TIERS as readonly string[]).includes(value);
}

const GIB = 1024 ** 3;
/**
 * GPU memory for high-end: 23 GiB, a 24 GB card as the driver reports it. It is where Ollama
 * itself moves from a 4,096-token to a 32,768-token default window, and where a 30B model at
 * 4-bit (the fleet's qwen3-coder:30b) stops spilling to the CPU.
 */
export const HIGH_END_GPU_BYTES = 23 * GIB;
/**
 * GPU memory for mid-range: an 8 GB card, which holds an 8B model at 4-bit (about 5 GB) with its
 * cache, the smallest chat model the auto alias prefers (7B and up). 7.5 GiB, as 23 is for 24:
 * the driver keeps some back, and nvidia-smi reports an RTX 4060's 8 GB as 8188 MiB, under 8 GiB,
 * which rated the card no GPU at all. A smaller GPU cannot keep such a model resident, so the
 * node is judged on its system memory as a CPU node.
 */
export const MID_RANGE_GPU_BYTES = 7.5 * GIB;
/**
 * System memory for cpu-only: a 16 GB machine holds that 8B model, four slots of cache and the
 * operating system. 15 GiB, since Linux reports what the kernel leaves (a 16 GiB machine's
 * MemTotal is about 15.5 GiB). Below it, even that model does not fit beside everything else:
 * insufficient.
 */
export const CPU_ONLY_MEMORY_BYTES = 15 * GIB;
/**
 * Share of Apple silicon's unified memory counted as GPU memory. macOS caps what the GPU may
 * wire at a fraction of the total (about two thirds on smaller machines, more on larger ones);
 * the lower figure is used, so a tier errs low rather than high.
 */
export const APPLE_GPU_SHARE = 2 / 3;

export type GpuVendor = 'nvidia' | 'amd' | 'apple';

export interface DetectedGpu {
  readonly vendor: GpuVendor;
  /** The device's memory in bytes (Apple: the share of unified memory above); null when it could not be read. */
  readonly memoryBytes: number | null;
  /** Where it was found: `nvidia-smi`, `/sys/class/drm/card0`, `unified memory`. */
  readonly via: string;
}

/** What the machine has, as detection found it. */
export interface HardwareFacts {
  readonly platform: string;
  readonly arch: string;
  /** Total system memory, bytes; null when it could not be read (os.totalmem() answers 0 then). */
  readonly memoryBytes: number | null;
  /** GPUs found (empty: none); null when detection could not tell whether there is one. */
  readonly gpus: readonly DetectedGpu[] | null;
  /** Why gpus is null (or what was left out); null when nothing went wrong. */
  readonly problem: string | null;
}

/** The tier and what it was decided from. */
export interface TierDecision {
  /** null: not detected, and then not advertised. */
  readonly tier: HardwareTier | null;
  /** GPU memory the tier was judged on (the largest vendor's total); null when no GPU counts or it is unknown. */
  readonly gpuMemoryBytes: number | null;
  /** Why there is no tier; null when there is one. */
  readonly unknownBecause: string | null;
}

/**
 * The rule, first match wins:
 * 1. detection could not tell whether there is a GPU, or a GPU's memory could not be read: no tier;
 * 2. GPU memory (one vendor's cards summed, since engines split a model across them) of at
 *    least HIGH_END_GPU_BYTES: high-end;
 * 3. at least MID_RANGE_GPU_BYTES: mid-range;
 * 4. system memory unknown: no tier; at least CPU_ONLY_MEMORY_BYTES: cpu-only;
 * 5. otherwise: insufficient.
 */
export function decideTier(facts: HardwareFacts): TierDecision {
  if (facts.gpus === null) return { tier: null, gpuMemoryBytes: null, unknownBecause: facts.problem ?? 'GPU detection could not tell' };
  const unsized = facts.gpus.find((g) => g.memoryBytes === null);
  if (unsized !== undefined)
    return { tier: null, gpuMemoryBytes: null, unknownBecause: `the ${unsized.vendor} GPU at ${unsized.via} has no readable memory size` };
  const byVendor = new Map<GpuVendor, number>();
  for (const g of facts.gpus) byVendor.set(g.vendor, (byVendor.get(g.vendor) ?? 0) + (g.memoryBytes ?? 0));
  const gpuBytes = Math.max(0, ...byVendor.values());
  if (gpuBytes >= HIGH_END_GPU_BYTES) return { tier: 'high-end', gpuMemoryBytes: gpuBytes, unknownBecause: null };
  if (gpuBytes >= MID_RANGE_GPU_BYTES) return { tier: 'mid-range', gpuMemoryBytes: gpuBytes, unknownBecause: null };
  const gpuMemoryBytes = byVendor.size === 0 ? null : gpuBytes;
  if (facts.memoryBytes === null) return { tier: null, gpuMemoryBytes, unknownBecause: 'system memory could not be read' };
  if (facts.memoryBytes >= CPU_ONLY_MEMORY_BYTES) return { tier: 'cpu-only', gpuMemoryBytes, unknownBecause: null };
  return { tier: 'insufficient', gpuMemoryBytes, unknownBecause: null };
}
