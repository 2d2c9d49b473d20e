/**
 * A small seeded generator for model weights: the same seed gives the same file on every
 * machine, so the cached model's name can be derived from its recipe alone.
 */

/** mulberry32: 32-bit state, uniform floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Roughly normal values with the given standard deviation: the sum of four uniforms (Irwin-Hall),
 * centred and scaled. Only additions and one multiplication, so the bytes do not depend on how a
 * platform computes log, sin or cos.
 */
export function gaussian(uniform: () => number, std: number): () => number {
  const scale = std * Math.sqrt(3); // four U(0,1) sum to variance 1/3
  return () => (uniform() + uniform() + uniform() + uniform() - 2) * scale;
}
