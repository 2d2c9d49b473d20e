import { describe, it } from 'node:test';
import { placementContext } from '../context.fixture.js';
import assert from 'node:assert/strict';
import type { RoutingPin } from '../../config/settings-schema.js';
import type { PinRecord } from '../../routing-log/entry.js';
import { place, STEPS } from '../pipeline.js';
import type { PlacementStep, Tiers } from '../types.js';
import { localEngine as local, peerAt as peer } from './candidate-fixtures.js';
import { pinStep, pinTargetNode, resolvePin } from './pin.js';

const L1 = local('ollama');
const L2 = local('vllm');
const A = peer('core-2.tail0.ts.net');
const B = peer('core-3.tail0.ts.net');
const C = peer('core-4.tail0.ts.net');

const modelPin = (model: string, target: string): RoutingPin => ({ scope: 'model', model, target });
const defaultPin = (target: string): RoutingPin => ({ scope: 'default', model: null, target });

const ids = (tiers: Tiers) => tiers.map((t) => t.map((c) => c.id));

describe('pinStep', () => {
  const cases: readonly {
    name: string;
    model?: string;
    pins: readonly RoutingPin[];
    tiers: Tiers;
    expect: Tiers;
    record: PinRecord | null;
  }[] = [
    {
      name: 'no pin at all: the order stands and nothing is recorded',
      pins: [],
      tiers: [[L1, A, B]],
      expect: [[L1, A, B]],
      record: null,
    },
    {
      name: 'a pin for another model and no default: nothing applies',
      pins: [modelPin('llama3.2:3b', B.node)],
      tiers: [[L1, A, B]],
      expect: [[L1, A, B]],
      record: null,
    },
    {
      name: 'a model pin wins over the default pin, and they do not stack',
      pins: [defaultPin(A.node), modelPin('qwen3:8b', B.node)],
      tiers: [[L1, A, B]],
      expect: [[B, L1, A]],
      record: { scope: 'model', model: 'qwen3:8b', target: B.node, applied: true },
    },
    {
      name: 'the default pin applies to a model without its own pin',
      pins: [modelPin('llama3.2:3b', B.node), defaultPin(A.node)],
      tiers: [[L1, A, B]],
      expect: [[A, L1, B]],
      record: { scope: 'default', model: null, target: A.node, applied: true },
    },
    {
      name: 'the model is matched case-sensitively: a pin for Qwen3:8B does not govern qwen3:8b',
      pins: [modelPin('Qwen3:8B', B.node), defaultPin(C.node)],
      tiers: [[L1, A, B, C]],
      expect: [[C, L1, A, B]],
      record: { scope: 'default', model: null, target: C.node, applied: true },
    },
    {
      name: 'a target with no candidate is a silent no-op, recorded as not applied',
      pins: [modelPin('qwen3:8b', 'gone.tail0.ts.net')],
      tiers: [[L1, A, B]],
      expect: [[L1, A, B]],
      record: { scope: 'model', model: 'qwen3:8b', target: 'gone.tail0.ts.net', applied: false },
    },
    {
      name: 'the others keep their ranked order behind the pinned node',
      pins: [defaultPin(C.node)],
      tiers: [[B, L1, A, C]],
      expect: [[C, B, L1, A]],
      record: { scope: 'default', model: null, target: C.node, applied: true },
    },
    {
      name: 'a pin moves a peer ahead of local',
      pins: [modelPin('qwen3:8b', A.node)],
      tiers: [[L1, L2, A]],
      expect: [[A, L1, L2]],
      record: { scope: 'model', model: 'qwen3:8b', target: A.node, applied: true },
    },
    {
      name: 'several candidates of the target keep their relative order',
      pins: [defaultPin('local')],
      tiers: [[A, L2, B, L1]],
      expect: [[L2, L1, A, B]],
      record: { scope: 'default', model: null, target: 'local', applied: true },
    },
    {
      name: 'a peer target is compared normalised: case and a trailing dot do not matter',
      pins: [defaultPin('CORE-3.Tail0.ts.net.')],
      tiers: [[L1, A, B]],
      expect: [[B, L1, A]],
      record: { scope: 'default', model: null, target: 'CORE-3.Tail0.ts.net.', applied: true },
    },
    {
      name: 'the pinned node moves to the front of each tier it is in, never across tiers',
      pins: [defaultPin('local')],
      tiers: [
        [A, L1],
        [B, L2, C],
      ],
      expect: [
        [L1, A],
        [L2, B, C],
      ],
      record: { scope: 'default', model: null, target: 'local', applied: true },
    },
    {
      name: 'a pinned node found only in a later tier leads that tier alone',
      pins: [modelPin('qwen3:8b', C.node)],
      tiers: [
        [L1, A],
        [B, C],
      ],
      expect: [
        [L1, A],
        [C, B],
      ],
      record: { scope: 'model', model: 'qwen3:8b', target: C.node, applied: true },
    },
    {
      name: 'an empty candidate list: the pin is recorded as not applied',
      pins: [defaultPin('local')],
      tiers: [[]],
      expect: [[]],
      record: { scope: 'default', model: null, target: 'local', applied: false },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const out = pinStep.run(c.tiers, placementContext({ model: c.model ?? 'qwen3:8b', pins: c.pins }));
      assert.deepEqual(ids(out.tiers), ids(c.expect));
      assert.deepEqual(out.record, c.record);
    });
  }

  it('a default pin stored without a model key (hand-edited settings.json) records model null', () => {
    const pin = { scope: 'default', target: 'local' } as unknown as RoutingPin;
    assert.deepEqual(pinStep.run([[A, L1]], placementContext({ model: 'm', pins: [pin] })).record, {
      scope: 'default',
      model: null,
      target: 'local',
      applied: true,
    });
  });
});

describe('resolvePin', () => {
  const pins = [defaultPin('local'), modelPin('org/model:tag', A.node)];
  const cases: readonly { model: string; expect: RoutingPin | null; pins?: readonly RoutingPin[] }[] = [
    { model: 'org/model:tag', expect: pins[1]! },
    { model: 'org/model:TAG', expect: pins[0]! },
    { model: 'org/model:tag ', expect: pins[0]! },
    { model: 'other', expect: pins[0]! },
    { model: 'other', pins: [modelPin('org/model:tag', A.node)], expect: null },
  ];
  for (const c of cases) {
    it(`${JSON.stringify(c.model)} with ${(c.pins ?? pins).length} pins resolves to ${c.expect === null ? 'none' : `the ${c.expect.scope} pin`}`, () =>
      assert.equal(resolvePin(c.pins ?? pins, c.model), c.expect));
  }
});

describe('pinTargetNode', () => {
  const cases: readonly [string, string][] = [
    ['local', 'local'],
    ['LOCAL', 'local'],
    ['core-2.tail0.ts.net', 'core-2.tail0.ts.net'],
    ['Core-2.Tail0.TS.net.', 'core-2.tail0.ts.net'],
    ['not a name', 'not a name'],
  ];
  for (const [target, node] of cases) it(`${JSON.stringify(target)} names ${JSON.stringify(node)}`, () => assert.equal(pinTargetNode(target), node));
});

describe('the pin in the pipeline', () => {
  // Only the much-slower rule (it writes the throughput record) runs after the pin: it judges the
  // node each group would try first, pin included, leaving a pinned first node where it is.
  // Withholding runs before, into a last group of its own the pin cannot reorder anyone out of.
  it('runs after every step that splits or reorders groups by the request, with only the much-slower rule after it', () =>
    assert.deepEqual(
      STEPS.slice(-2).map((s) => s.key),
      ['pin', 'throughput'],
    ));

  /** A fake earlier step: sends every candidate of `node` into a later tier, as a prompt ceiling would. */
  const demote = (node: string): PlacementStep<'promptCeiling'> => ({
    key: 'promptCeiling',
    run: (tiers) => {
      const moved = tiers.flat().filter((c) => c.node === node);
      return {
        tiers: moved.length === 0 ? tiers : [...tiers.map((t) => t.filter((c) => c.node !== node)), moved],
        record: { estimatedTokens: 2048, excluded: [{ node, maxPromptTokens: 1024 }], overridden: false },
      };
    },
  });

  it('cannot lift a pinned node out of the later tier an earlier step put it in', () => {
    const placement = place([L1, A, B], placementContext({ model: 'qwen3:8b', pins: [defaultPin(A.node)] }), [demote(A.node), pinStep]);
    assert.deepEqual(
      placement.order.map((c) => c.id),
      [L1.id, B.id, A.id],
    );
    assert.deepEqual(placement.records.pin, { scope: 'default', model: null, target: A.node, applied: true });
  });

  it('leads the first tier when nothing demoted it', () => {
    const placement = place([L1, A, B], placementContext({ model: 'qwen3:8b', pins: [defaultPin(B.node)] }), [demote(A.node), pinStep]);
    assert.deepEqual(
      placement.order.map((c) => c.id),
      [B.id, L1.id, A.id],
    );
  });

  it('is what place() runs by default', () => {
    const placement = place([L1, A], placementContext({ model: 'qwen3:8b', pins: [modelPin('qwen3:8b', A.node)] }));
    assert.deepEqual(
      placement.order.map((c) => c.id),
      [A.id, L1.id],
    );
    assert.equal((placement.records.pin as PinRecord).applied, true);
  });
});
