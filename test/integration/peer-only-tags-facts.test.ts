/**
 * Ollama's /api/tags on a Hub lists models only its peers hold, and states the parameter size and
 * capabilities those peers published for them: a client choosing a model by size or by "tools"
 * (the official ollama client's list()) once saw an empty size and no capabilities for every
 * peer-only model, though the peers' capabilities documents carried both. Where two holders
 * publish different facts under one name, the listing states only what both say, since the
 * request may be placed on either.
 *
 * Three real Hubs on loopback with simulated Ollamas: A holds a model of its own, B and C hold
 * the peer-only ones. Nothing here waits on a poll: each Hub holds the other's snapshot from the
 * pairing on.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Ollama } from 'ollama';
import { START_TIMEOUT_MS, TEST_TIMEOUT_MS, usePool } from '../helpers/pool-fixture.js';

const A_OWN = 'a-own:1b';
const B_ONLY = 'b-only:8b';
const DISPUTED = 'disputed:7b'; // on B and C, published differently by each
const UNDESCRIBED_ON_C = 'c-only:3b';

type L = 'a' | 'b' | 'c';

/** An /api/tags entry as the wire carries it; the client's types leave capabilities out. */
interface TagsEntry {
  readonly name: string;
  readonly size: number;
  readonly digest: string;
  readonly details: { readonly parameter_size: string };
  readonly capabilities?: string[];
}

describe("/api/tags states a peer-only model's published size and capabilities", () => {
  const pool = usePool<L>({
    hubs: {
      a: { ollama: { models: [A_OWN] } },
      b: {
        ollama: {
          models: [
            { name: B_ONLY, parameterSize: '8.2B', capabilities: ['completion', 'tools', 'thinking'] },
            { name: DISPUTED, parameterSize: '7.6B', capabilities: ['completion', 'tools'] },
          ],
        },
      },
      c: {
        ollama: {
          models: [
            { name: DISPUTED, parameterSize: '7B', capabilities: ['completion', 'vision'] },
            { name: UNDESCRIBED_ON_C, parameterSize: '3B', capabilities: [] },
          ],
        },
      },
    },
    pairs: [
      ['a', 'b'],
      ['a', 'c'],
    ],
    settings: { poolHealthPollSeconds: 300 },
  });
  let listed: Map<string, TagsEntry>;

  before(
    async () => {
      const ollama = new Ollama({ host: pool().a.pool });
      const { models } = await ollama.list();
      listed = new Map((models as unknown as TagsEntry[]).map((m) => [m.name, m]));
    },
    { timeout: START_TIMEOUT_MS },
  );

  it('gives a model one peer holds the size and capabilities that peer published', { timeout: TEST_TIMEOUT_MS }, () => {
    const entry = listed.get(B_ONLY);
    assert.ok(entry, `${B_ONLY} is listed: ${[...listed.keys()].join(', ')}`);
    assert.equal(entry.details.parameter_size, '8.2B');
    assert.deepEqual(entry.capabilities, ['completion', 'tools', 'thinking']);
    // Peers still publish no size on disk or digest: those stay empty rather than invented.
    assert.equal(entry.size, 0);
    assert.equal(entry.digest, '');
  });

  it('states only what both holders say when they publish different facts under one name', { timeout: TEST_TIMEOUT_MS }, () => {
    const entry = listed.get(DISPUTED);
    assert.ok(entry, `${DISPUTED} is listed once: ${[...listed.keys()].join(', ')}`);
    assert.equal(entry.details.parameter_size, '', 'two sizes: neither is stated');
    assert.deepEqual(entry.capabilities, ['completion'], 'the one capability both list');
  });

  it('leaves capabilities out for a model whose holder lists none, as Ollama does', { timeout: TEST_TIMEOUT_MS }, () => {
    const entry = listed.get(UNDESCRIBED_ON_C);
    assert.ok(entry, `${UNDESCRIBED_ON_C} is listed`);
    assert.equal(entry.details.parameter_size, '3B');
    assert.ok(!('capabilities' in entry), JSON.stringify(entry));
  });

  it("keeps A's own model as its engine lists it", { timeout: TEST_TIMEOUT_MS }, () => {
    const entry = listed.get(A_OWN);
    assert.ok(entry && entry.digest.length > 0, JSON.stringify(entry));
  });
});
