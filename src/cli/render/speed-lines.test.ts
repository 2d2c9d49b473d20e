import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { PoolStatus } from '../../status/pool-status.js';
import { slotsText, speedLines } from './speed-lines.js';

const band = { fromTokens: 8192, promptTokens: 10_000, tokensPerSec: 480.4, deadline: false, ageMs: 120_000 };

function status(localNode: Partial<PoolStatus['localNode']>, peers: PoolStatus['peers'] = []): PoolStatus {
  return { localNode, peers } as unknown as PoolStatus;
}

describe('status: slots and measured speed', () => {
  const slotRows = [
    { name: 'stated, knob on', node: { ollamaSlots: 4, slotAwareness: true }, expect: '4 (slot awareness on here)' },
    { name: 'stated, knob off', node: { ollamaSlots: 2, slotAwareness: false }, expect: '2 (slot awareness off here: ranking does not read it)' },
    { name: 'not stated', node: { ollamaSlots: null, slotAwareness: false }, expect: 'not stated (slot awareness off here: ranking does not read it)' },
    { name: 'an older Hub that reports nothing', node: {}, expect: null },
  ];
  for (const row of slotRows) it(`ollama slots: ${row.name}`, () => assert.equal(slotsText(row.node as PoolStatus['localNode']), row.expect));

  it("lists this node's bands and a peer's advertised ones, each with size, rate and age", () => {
    const lines = speedLines(
      status(
        {
          throughput: {
            estimates: [{ node: 'local', backendId: 'ollama', model: 'qwen3:8b', bands: [band], decodeTokensPerSec: 41.7, decodeAgeMs: 3 * 60_000 }],
            advertised: null,
          },
        },
        [
          {
            nodeFqdn: 'core-6.tail0.ts.net',
            throughput: {
              observed: [],
              advertised: {
                'qwen3:8b': { bands: [{ ...band, tokensPerSec: 20, deadline: true }], decodeTokensPerSec: 30, decodeAgeMs: 45_000 },
                'old:1b': { bands: [], decodeTokensPerSec: 12, decodeAgeMs: null },
              },
            },
          },
        ] as unknown as PoolStatus['peers'],
      ),
    );
    assert.deepEqual(lines, [
      '',
      'Measured speed (prefill per prompt-size band, in estimated tokens)',
      '  local ollama qwen3:8b: 8192+: 480 tok/s on 10000 tokens, 2 min ago · decode 42 tok/s, 3 min ago',
      '  core-6.tail0.ts.net qwen3:8b (advertised): 8192+: ≤20 tok/s (missed its deadline) on 10000 tokens, 2 min ago · decode 30 tok/s, 45 s ago',
      '  core-6.tail0.ts.net old:1b (advertised): decode 12 tok/s (its age not reported)',
    ]);
  });

  it('shows an age below zero (a reading timed before the Hub clock was set back) as taken now, never as negative', () => {
    const estimate = {
      node: 'local',
      backendId: 'ollama',
      model: 'qwen3:8b',
      bands: [{ ...band, ageMs: -90 * 60_000 }],
      decodeTokensPerSec: 41.7,
      decodeAgeMs: -30_000,
    };
    assert.equal(
      speedLines(status({ throughput: { estimates: [estimate], advertised: null } })).at(-1),
      '  local ollama qwen3:8b: 8192+: 480 tok/s on 10000 tokens, 0 s ago · decode 42 tok/s, 0 s ago',
    );
  });

  it('says nothing has been timed yet rather than showing an empty block', () =>
    assert.equal(
      speedLines(status({ throughput: { estimates: [], advertised: null } })).at(-1),
      '  nothing timed yet: chat and completion prompts of 4,096 estimated tokens or more are timed',
    ));
});
