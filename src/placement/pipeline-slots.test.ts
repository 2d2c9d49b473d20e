/**
 * Where slot-aware placement sits in the pipeline (spec, "Slot-aware placement", the ranking
 * order): inside the prompt ceiling and context cap splits, which are the operator's statements,
 * and with the pin applied after it within each group, so a pin at a full node cannot put it back
 * in front of a node with a free slot. The slots step's own table tests it alone; these run place().
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { RoutingPin } from '../config/settings-schema.js';
import { limits, placementContext } from './context.fixture.js';
import { place } from './pipeline.js';
import type { Candidate, NodeLimits } from './types.js';
import { peerNode } from './steps/candidate-fixtures.js';

// beta-max at 2 in flight on its 2 slots is full; core-2 at 3 in flight on 4 has one free.
const FULL = peerNode('beta-max', 2);
const FREE = peerNode('core-2', 3);
const SLOTS = {
  stated: new Map([
    [FULL.id, 2],
    [FREE.id, 4],
  ]),
};
const PROMPT_TOKENS = 10_000;

describe('slots in the pipeline', () => {
  const rows: readonly { name: string; ranked: Candidate[]; pins?: RoutingPin[]; limits?: ReadonlyMap<string, NodeLimits>; order: Candidate[] }[] = [
    { name: 'the control: a full node goes behind one with a free slot', ranked: [FULL, FREE], order: [FREE, FULL] },
    {
      name: 'a pin at the full node does not put it back in front of the free one',
      ranked: [FULL, FREE],
      pins: [{ scope: 'default', model: null, target: FULL.node }],
      order: [FREE, FULL],
    },
    {
      name: 'a prompt ceiling wins over slots: the free node over its ceiling stays behind the full one under it',
      ranked: [FULL, FREE],
      limits: limits({ [FREE.node]: { maxPromptTokens: 1024 } }),
      order: [FULL, FREE],
    },
    {
      name: 'a context cap wins over slots: the free node capped below the window stays behind the full one',
      ranked: [FULL, FREE],
      limits: limits({ [FREE.node]: { maxNumCtx: 4096 } }),
      order: [FULL, FREE],
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const placement = place(
        row.ranked,
        placementContext({
          estimatedTokens: PROMPT_TOKENS,
          window: { numCtx: 16_384, source: 'request' },
          pins: row.pins ?? [],
          limits: row.limits ?? new Map(),
          slots: SLOTS,
        }),
      );
      assert.deepEqual(
        placement.order.map((c) => c.id),
        row.order.map((c) => c.id),
      );
    });
  }
});
