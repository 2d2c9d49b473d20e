import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { rankCandidates } from './rank.js';
import type { Candidate } from './types.js';
import { localEngine, peerAt as peer } from './steps/candidate-fixtures.js';

const local = (backendId: string, queueDepth: number, extra: Partial<Candidate> = {}): Candidate => localEngine(backendId, queueDepth, 'ollama', extra);

const ids = (list: readonly Candidate[]) => list.map((c) => c.id);

interface Row {
  readonly name: string;
  readonly affinity: number;
  readonly candidates: readonly Candidate[];
  readonly order: readonly string[];
}

describe('rankCandidates: the local head start', () => {
  const rows: readonly Row[] = [
    {
      name: 'gives local the exact tie at poolLocalAffinity 0',
      affinity: 0,
      candidates: [peer('core-2.tail.ts.net', 0), local('ollama', 0)],
      order: ['local/ollama', 'core-2.tail.ts.net/pool'],
    },
    {
      name: 'at poolLocalAffinity 0, a peer one request emptier goes first',
      affinity: 0,
      candidates: [local('ollama', 1), peer('core-2.tail.ts.net', 0)],
      order: ['core-2.tail.ts.net/pool', 'local/ollama'],
    },
    {
      name: 'at the default 1, local one request busier than an idle peer keeps the work',
      affinity: 1,
      candidates: [peer('core-2.tail.ts.net', 0), local('ollama', 1)],
      order: ['local/ollama', 'core-2.tail.ts.net/pool'],
    },
    {
      name: 'at the default 1, the work leaves once the peer is two requests emptier',
      affinity: 1,
      candidates: [local('ollama', 2), peer('core-2.tail.ts.net', 0)],
      order: ['core-2.tail.ts.net/pool', 'local/ollama'],
    },
    {
      name: 'at the default 1, busy nodes compare the same way (local 5 vs peer 4 stays local)',
      affinity: 1,
      candidates: [peer('core-2.tail.ts.net', 4), local('ollama', 5)],
      order: ['local/ollama', 'core-2.tail.ts.net/pool'],
    },
    {
      name: 'at affinity 3, local with 3 queued still beats an idle peer',
      affinity: 3,
      candidates: [peer('core-2.tail.ts.net', 0), local('ollama', 3)],
      order: ['local/ollama', 'core-2.tail.ts.net/pool'],
    },
    {
      name: 'at affinity 3, local with 4 queued yields to an idle peer',
      affinity: 3,
      candidates: [local('ollama', 4), peer('core-2.tail.ts.net', 0)],
      order: ['core-2.tail.ts.net/pool', 'local/ollama'],
    },
    {
      name: 'at the maximum 20, local keeps the work up to 20 queued',
      affinity: 20,
      candidates: [peer('core-2.tail.ts.net', 0), local('ollama', 20)],
      order: ['local/ollama', 'core-2.tail.ts.net/pool'],
    },
    {
      name: 'a local engine behind the head start still ranks among peers by its adjusted depth',
      affinity: 1,
      candidates: [peer('core-3.tail.ts.net', 3), local('ollama', 3), peer('core-2.tail.ts.net', 1)],
      order: ['core-2.tail.ts.net/pool', 'local/ollama', 'core-3.tail.ts.net/pool'],
    },
    {
      name: 'peers are ordered by queue depth, emptiest first',
      affinity: 1,
      candidates: [peer('core-4.tail.ts.net', 7), peer('core-2.tail.ts.net', 2), peer('core-3.tail.ts.net', 5)],
      order: ['core-2.tail.ts.net/pool', 'core-3.tail.ts.net/pool', 'core-4.tail.ts.net/pool'],
    },
    {
      name: 'two local engines are ordered by their own depths',
      affinity: 1,
      candidates: [local('ollama', 2), local('vllm', 0)],
      order: ['local/vllm', 'local/ollama'],
    },
  ];
  for (const row of rows) {
    it(row.name, () => assert.deepEqual(ids(rankCandidates(row.candidates, { localAffinity: row.affinity, pressureWeight: 0 })), row.order));
  }
});

describe('rankCandidates: stable among equals', () => {
  it('keeps the given order of equally queued peers', () => {
    const list = [peer('core-9.tail.ts.net', 1), peer('core-2.tail.ts.net', 1), peer('core-5.tail.ts.net', 1)];
    assert.deepEqual(ids(rankCandidates(list, { pressureWeight: 0, localAffinity: 1 })), ids(list));
  });

  it('keeps the configured order of equally queued local engines', () => {
    const list = [local('vllm', 0), local('ollama', 0), local('lemonade', 0)];
    assert.deepEqual(ids(rankCandidates(list, { pressureWeight: 0, localAffinity: 0 })), ids(list));
  });

  it('keeps local engines together ahead of tied peers, each group in its given order', () => {
    const list = [peer('core-9.tail.ts.net', 0), local('vllm', 0), peer('core-2.tail.ts.net', 0), local('ollama', 0)];
    assert.deepEqual(ids(rankCandidates(list, { pressureWeight: 0, localAffinity: 0 })), [
      'local/vllm',
      'local/ollama',
      'core-9.tail.ts.net/pool',
      'core-2.tail.ts.net/pool',
    ]);
  });

  it('leaves the input list as it was', () => {
    const list = [local('ollama', 4), peer('core-2.tail.ts.net', 0)];
    const before = ids(list);
    rankCandidates(list, { pressureWeight: 0, localAffinity: 1 });
    assert.deepEqual(ids(list), before);
  });
});

describe('rankCandidates: the local head start also holds when pressure is weighed', () => {
  // poolPressureWeight above 0 takes the other branch of the score; the head start must survive it.
  // Both sides carry the same band, so pressure cannot be what decides these rows.
  const rows: readonly (Row & { readonly weight: number; readonly pressure: number })[] = [
    {
      name: 'at weight 1, local one request busier than an idle peer keeps the work (affinity 1)',
      weight: 1,
      pressure: 2,
      affinity: 1,
      candidates: [peer('core-2.tail.ts.net', 0), local('ollama', 1)],
      order: ['local/ollama', 'core-2.tail.ts.net/pool'],
    },
    {
      name: 'at weight 1, the work leaves once the peer is two requests emptier (affinity 1)',
      weight: 1,
      pressure: 2,
      affinity: 1,
      candidates: [local('ollama', 2), peer('core-2.tail.ts.net', 0)],
      order: ['core-2.tail.ts.net/pool', 'local/ollama'],
    },
    {
      name: 'at weight 3 and affinity 3, local with 3 queued still beats an idle peer',
      weight: 3,
      pressure: 1,
      affinity: 3,
      candidates: [peer('core-2.tail.ts.net', 0), local('ollama', 3)],
      order: ['local/ollama', 'core-2.tail.ts.net/pool'],
    },
    {
      name: 'at weight 3 and affinity 3, local with 4 queued yields to an idle peer',
      weight: 3,
      pressure: 1,
      affinity: 3,
      candidates: [local('ollama', 4), peer('core-2.tail.ts.net', 0)],
      order: ['core-2.tail.ts.net/pool', 'local/ollama'],
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const banded = row.candidates.map((c) => ({ ...c, pressure: row.pressure }));
      assert.deepEqual(ids(rankCandidates(banded, { localAffinity: row.affinity, pressureWeight: row.weight })), row.order);
    });
  }

  it('a calmer local GPU adds to the head start: local two requests busier than a pressured peer keeps the work', () => {
    const list = [peer('core-2.tail.ts.net', 0, { pressure: 1 }), local('ollama', 2, { pressure: 0 })];
    assert.deepEqual(ids(rankCandidates(list, { localAffinity: 1, pressureWeight: 1 })), ['local/ollama', 'core-2.tail.ts.net/pool']);
  });
});

describe('rankCandidates: pressure and hardware tier', () => {
  const rows: readonly { name: string; weight: number; candidates: readonly Candidate[]; order: readonly string[] }[] = [
    {
      name: 'at weight 0 a busy GPU does not count: the peer with the shorter queue goes first',
      weight: 0,
      candidates: [peer('a.ts.net', 0, { pressure: 3 }), peer('b.ts.net', 1, { pressure: 0 })],
      order: ['a.ts.net/pool', 'b.ts.net/pool'],
    },
    {
      name: 'at weight 1 an empty queue on a committed GPU gives way to a calmer peer',
      weight: 1,
      candidates: [peer('a.ts.net', 0, { pressure: 3 }), peer('b.ts.net', 1, { pressure: 0 })],
      order: ['b.ts.net/pool', 'a.ts.net/pool'],
    },
    {
      name: 'at weight 1 this node, idle but with its own GPU committed, hands work to a calm peer despite the head start',
      weight: 1,
      candidates: [local('ollama', 0, { pressure: 3 }), peer('b.ts.net', 0, { pressure: 0 })],
      order: ['b.ts.net/pool', 'local/ollama'],
    },
    {
      name: 'a materially shorter queue still wins over a band',
      weight: 1,
      candidates: [peer('a.ts.net', 5, { pressure: 0 }), peer('b.ts.net', 0, { pressure: 3 })],
      order: ['b.ts.net/pool', 'a.ts.net/pool'],
    },
    {
      name: 'equal queues: the better reported tier goes first, an unreported tier sits between GPU and CPU',
      weight: 0,
      candidates: [peer('cpu.ts.net', 1, { hardwareTier: 'cpu-only' }), peer('none.ts.net', 1), peer('gpu.ts.net', 1, { hardwareTier: 'high-end' })],
      order: ['gpu.ts.net/pool', 'none.ts.net/pool', 'cpu.ts.net/pool'],
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      assert.deepEqual(ids(rankCandidates(row.candidates, { localAffinity: 1, pressureWeight: row.weight })), row.order);
    });
  }

  it('never reads pressure at weight 0', () => {
    const spy = peer('a.ts.net', 0);
    Object.defineProperty(spy, 'pressure', { get: () => assert.fail('pressure was read at weight 0') });
    rankCandidates([spy, peer('b.ts.net', 1)], { localAffinity: 1, pressureWeight: 0 });
  });
});

describe('rankCandidates: the order as a whole', () => {
  const TIERS = [null, 'high-end', 'mid-range', 'cpu-only', 'insufficient', 'unheard-of'];
  const TIER_ORDER: Record<string, number> = { 'high-end': 0, 'mid-range': 1, 'cpu-only': 3, insufficient: 4 };

  /** The ranker's rule stated directly: score, then local first, then tier, then the given order. */
  function byTheRule(list: readonly Candidate[], opts: { localAffinity: number; pressureWeight: number }): string[] {
    const score = (c: Candidate) => (c.node === 'local' ? c.queueDepth - opts.localAffinity : c.queueDepth) + opts.pressureWeight * c.pressure;
    const tier = (c: Candidate) => (c.hardwareTier === null ? 2 : (TIER_ORDER[c.hardwareTier] ?? 2));
    const at = new Map(list.map((c, i) => [c, i]));
    const sorted = [...list].sort(
      (a, b) => score(a) - score(b) || Number(b.node === 'local') - Number(a.node === 'local') || tier(a) - tier(b) || at.get(a)! - at.get(b)!,
    );
    return ids(sorted);
  }

  it('orders 300 random pools of up to 60 candidates exactly as the rule says', () => {
    let seed = 7;
    const next = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    for (let round = 0; round < 300; round++) {
      const list = Array.from({ length: next(61) }, (_, i) =>
        next(5) === 0 ? local(`engine-${i}`, next(6)) : peer(`node-${i}.ts.net`, next(6), { hardwareTier: TIERS[next(TIERS.length)]!, pressure: next(4) }),
      );
      const opts = { localAffinity: next(3), pressureWeight: next(3) };
      assert.deepEqual(ids(rankCandidates(list, opts)), byTheRule(list, opts), `round ${round}`);
    }
  });
});
