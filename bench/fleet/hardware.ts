/**
 * The hardwareTier a modelled node's Hub publishes, decided by the Hub's own rule
 * (decideTier in src/machine/hardware-tier.ts) from the hardware facts the fleet file gives the
 * node. Nothing of the rule is restated here: this only turns the file's GiB into the facts
 * detection would have gathered on a Linux machine.
 */
import { decideTier, type DetectedGpu, type HardwareTier } from '../../src/machine/hardware-tier.js';
import type { NodeSpec } from './data-files.js';

const GIB = 1024 ** 3;

/** null: the rule finds no tier, so the node's Hub publishes none. */
export function publishedTier(node: NodeSpec): HardwareTier | null {
  const gpus: DetectedGpu[] = node.hardware.gpus.map((g) => ({ vendor: g.vendor, memoryBytes: Math.round(g.memoryGiB * GIB), via: 'fleet.json' }));
  return decideTier({ platform: 'linux', arch: 'x64', memoryBytes: Math.round(node.hardware.memoryGiB * GIB), gpus, problem: null }).tier;
}
