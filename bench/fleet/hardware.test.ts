import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { NODE, type NodeSpec } from './data-files.js';
import { publishedTier } from './hardware.js';

const node = (hardware: unknown): NodeSpec =>
  NODE.parse({
    name: 'n',
    source: 'assigned',
    gpu: true,
    hardware,
    prefillTokensPerSec: 300,
    growthTokens: 186000,
    decodeTokensPerSec: 30,
    slots: 4,
    statesSlots: true,
    defaultNumCtx: 65536,
    maxNumCtx: 65536,
    loadMs: 20000,
  });

describe('the hardwareTier a modelled node publishes', () => {
  it('is high-end for a 24 GiB card', () =>
    assert.equal(publishedTier(node({ gpus: [{ vendor: 'nvidia', memoryGiB: 24 }], memoryGiB: 64, source: 'assigned' })), 'high-end'));
  it('is mid-range for a 10 GiB card', () =>
    assert.equal(publishedTier(node({ gpus: [{ vendor: 'nvidia', memoryGiB: 10 }], memoryGiB: 32, source: 'spec' })), 'mid-range'));
  it('is cpu-only with no GPU and 32 GiB of memory', () => assert.equal(publishedTier(node({ gpus: [], memoryGiB: 32, source: 'assigned' })), 'cpu-only'));
  it('judges a card too small to count on system memory', () =>
    assert.equal(publishedTier(node({ gpus: [{ vendor: 'amd', memoryGiB: 4 }], memoryGiB: 8, source: 'assigned' })), 'insufficient'));
  it('refuses a node that states no hardware', () => assert.throws(() => node(undefined)));
});
