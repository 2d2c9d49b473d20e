import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { limits, placementContext } from '../context.fixture.js';
import { localEngine, peerAt as peer } from './candidate-fixtures.js';
import { place } from '../pipeline.js';
import type { Candidate, WithheldFact } from '../types.js';
import { withheldStep } from './withheld.js';

const L = localEngine('ollama');
const A = peer('hub-a');
const B = peer('hub-b');
const FACT: WithheldFact = { until: '2026-09-29T10:01:00.000Z', reason: 'degenerate-output' };

describe('withheld step', () => {
  const rows: readonly { name: string; tiers: Candidate[][]; withheld: string[]; after: string[][]; demoted: string[] | null }[] = [
    { name: 'nothing withheld: no move, null record', tiers: [[L, A, B]], withheld: [], after: [['local', 'hub-a', 'hub-b']], demoted: null },
    {
      name: 'a withheld engine the ranker put first goes behind every other candidate',
      tiers: [[L, A, B]],
      withheld: ['local/ollama'],
      after: [['hub-a', 'hub-b'], ['local']],
      demoted: ['local'],
    },
    { name: 'it goes behind later groups too', tiers: [[L, A], [B]], withheld: ['local/ollama'], after: [['hub-a'], ['hub-b'], ['local']], demoted: ['local'] },
    {
      name: 'several withheld keep their order at the end',
      tiers: [[A, L, B]],
      withheld: ['hub-a/pool', 'local/ollama'],
      after: [['hub-b'], ['hub-a', 'local']],
      demoted: ['hub-a', 'local'],
    },
    {
      name: 'a withheld fact for an engine that is no candidate changes nothing',
      tiers: [[A, B]],
      withheld: ['local/ollama'],
      after: [['hub-a', 'hub-b']],
      demoted: null,
    },
  ];
  for (const r of rows) {
    it(r.name, () => {
      const out = withheldStep.run(r.tiers, placementContext({ withheld: new Map(r.withheld.map((id) => [id, FACT])) }));
      assert.deepEqual(
        out.tiers.map((t) => t.map((c) => c.node)),
        r.after,
      );
      if (r.demoted === null) assert.equal(out.record, null);
      else
        assert.deepEqual(
          out.record?.demoted.map((d) => d.node),
          r.demoted,
        );
    });
  }

  it('records the engine, until when and why, so the row says why the first node was skipped', () => {
    const out = withheldStep.run([[L, A]], placementContext({ withheld: new Map([['local/ollama', FACT]]) }));
    assert.deepEqual(out.record, {
      demoted: [{ node: 'local', backend: 'ollama', backendId: 'ollama', until: FACT.until, reason: 'degenerate-output' }],
      overridden: false,
    });
  });

  it('names the engine by its id, so two local engines of one kind are told apart (OLLAMA_URL lists two)', () => {
    const first = { ...L, id: 'local/ollama-1', backendId: 'ollama-1' };
    const second = { ...L, id: 'local/ollama-2', backendId: 'ollama-2' };
    const out = withheldStep.run([[first, second]], placementContext({ withheld: new Map([['local/ollama-1', FACT]]) }));
    assert.deepEqual(
      out.tiers.map((t) => t.map((c) => c.id)),
      [['local/ollama-2'], ['local/ollama-1']],
    );
    assert.deepEqual(
      out.record?.demoted.map((d) => [d.backend, d.backendId]),
      [['ollama', 'ollama-1']],
    );
  });

  it('a pin at a withheld engine cannot bring it forward', () => {
    const placed = place(
      [L, A, B],
      placementContext({ pins: [{ scope: 'default', model: null, target: 'local' }], withheld: new Map([['local/ollama', FACT]]) }),
    );
    assert.deepEqual(
      placed.order.map((c) => c.node),
      ['hub-a', 'hub-b', 'local'],
    );
    assert.equal(placed.records.pin?.applied, true);
  });

  it('goes behind even candidates a ceiling moved back', () => {
    const placed = place(
      [L, A, B],
      placementContext({ estimatedTokens: 9000, limits: limits({ 'hub-a': { maxPromptTokens: 1024 } }), withheld: new Map([['local/ollama', FACT]]) }),
    );
    assert.deepEqual(
      placed.order.map((c) => c.node),
      ['hub-b', 'hub-a', 'local'],
    );
  });
});
