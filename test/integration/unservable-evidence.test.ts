/**
 * What counts as evidence that a local engine cannot serve a model (spec, "When a node lists a
 * model it cannot actually serve"): only a 5xx from this node's own engine that is not the
 * engine's verdict on the request. An engine shedding load (408, 429), an engine refusing a
 * request it could never serve (a verdict 500), a peer's 5xx and a port that refuses the
 * connection each say something else, and two of them in five minutes must not withhold the
 * model. A template that will not render is the exception among verdicts: the node's own copy of
 * the model can be what is broken, so it is the control that shows the same path does strike.
 *
 * Each case asks for its own model, so no case's strikes reach another's.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { PoolStatus } from '../../src/status/pool-status.js';
import type { RoutingLogPage } from '../../src/routing-log/entry.js';
import { chat, header, POOL_API, type PoolHub, TEST_TIMEOUT_MS, usePool } from '../helpers/pool-fixture.js';
import { eventually } from '../helpers/hub-process.js';

const SHED_429 = 'shed-429:8b';
const SHED_408 = 'shed-408:8b';
const QUEUE_FULL = 'queue-full:8b';
const BARE_503 = 'bare-503:8b';
const VERDICT = 'verdict:8b';
const TEMPLATE = 'template:8b';
const REFUSED = 'refused:8b';
const ON_PEER = 'peer-only:8b';
const PEER_VERDICT = 'peer-verdict:8b';
// Ollama's words when OLLAMA_MAX_QUEUE is full (protocols.md), two spaces and all.
const QUEUE_FULL_REFUSAL = '{"error":"server busy, please try again.  maximum pending requests exceeded"}';
const CONTEXT_VERDICT = '{"error":"the input length exceeds the context length"}';
const TEMPLATE_FAILURE = '{"error":"template: :1:12: executing \\"\\" at <.Foo>: can\'t evaluate field Foo"}';

type L = 'a' | 'b';

async function unservableKeys(hub: PoolHub): Promise<string[]> {
  const { status, json } = await hub.api<PoolStatus>('GET', `${POOL_API}/status`);
  assert.equal(status, 200);
  return json.withheld.unservable.map((w) => w.key);
}

const withheldHere = async (hub: PoolHub, model: string): Promise<boolean> => (await unservableKeys(hub)).some((k) => k.endsWith(`|${model}`));

describe('what withholds a model on this node and what does not', { timeout: TEST_TIMEOUT_MS }, () => {
  const pool = usePool<L>({
    hubs: {
      a: { ollama: { models: [SHED_429, SHED_408, QUEUE_FULL, BARE_503, VERDICT, TEMPLATE, REFUSED] } },
      b: { ollama: { models: [ON_PEER, PEER_VERDICT] } },
    },
    pairs: [['a', 'b']],
  });

  for (const [model, status, body, what] of [
    [SHED_429, 429, undefined, '429s'],
    [SHED_408, 408, undefined, '408s'],
    [QUEUE_FULL, 503, QUEUE_FULL_REFUSAL, "queue-full 503s (Ollama's OLLAMA_MAX_QUEUE)"],
  ] as const) {
    it(`does not withhold after two ${what} from the local engine: that is its queue talking`, async () => {
      await pool().a.engines.ollama!.setFault({ mode: 'error', status, body, model, count: 2 });
      // With no other candidate the app gets the Hub's 502; the fault's count is what proves both reached the engine.
      for (let i = 0; i < 2; i++) assert.equal((await chat(pool().a, model)).status, 502);
      assert.equal(await withheldHere(pool().a, model), false);
      assert.equal((await chat(pool().a, model)).status, 200, 'the model is still placed on the engine');
    });
  }

  it('does withhold after two 503s that say nothing about a queue', async () => {
    await pool().a.engines.ollama!.setFault({ mode: 'error', status: 503, body: '{"error":"out of memory"}', model: BARE_503, count: 2 });
    for (let i = 0; i < 2; i++) assert.equal((await chat(pool().a, BARE_503)).status, 502);
    assert.equal(await withheldHere(pool().a, BARE_503), true);
  });

  it("does not withhold after two 500s that are the engine's verdict on the request", async () => {
    await pool().a.engines.ollama!.setFault({ mode: 'error', status: 500, body: CONTEXT_VERDICT, model: VERDICT, count: 2 });
    for (let i = 0; i < 2; i++) assert.equal((await chat(pool().a, VERDICT)).status, 400, 'the app is told its request was refused');
    assert.equal(await withheldHere(pool().a, VERDICT), false);
    assert.equal((await chat(pool().a, VERDICT)).status, 200);
  });

  it('does withhold after two 500s saying the chat template would not render', async () => {
    await pool().a.engines.ollama!.setFault({ mode: 'error', status: 500, body: TEMPLATE_FAILURE, model: TEMPLATE, count: 2 });
    for (let i = 0; i < 2; i++) assert.equal((await chat(pool().a, TEMPLATE)).status, 500);
    assert.equal(await withheldHere(pool().a, TEMPLATE), true);
  });

  it("does not withhold on the entry Hub after two 5xx relayed from a peer: the peer records its own engine's", async () => {
    await pool().b.engines.ollama!.setFault({ mode: 'error', status: 503, model: ON_PEER, count: 2 });
    for (let i = 0; i < 2; i++) assert.ok((await chat(pool().a, ON_PEER)).status >= 500);
    await eventually(() => withheldHere(pool().b, ON_PEER), 'B to withhold the model on its own engine');
    assert.equal(await withheldHere(pool().a, ON_PEER), false);
  });

  it("does not withhold on a peer serving a forward after two 500s that are its engine's verdict on the request", async () => {
    await pool().b.engines.ollama!.setFault({ mode: 'error', status: 500, body: CONTEXT_VERDICT, model: PEER_VERDICT, count: 2 });
    for (let i = 0; i < 2; i++) {
      const res = await chat(pool().a, PEER_VERDICT);
      assert.equal(res.status, 400);
      assert.equal(header(res, 'x-hub-pool-served-by'), pool().b.name, 'B served the forward');
    }
    assert.equal(await withheldHere(pool().b, PEER_VERDICT), false);
    assert.equal((await chat(pool().a, PEER_VERDICT)).status, 200);
  });

  it('does not withhold after two refused connections: that is the daemon down, which the health check reports', async () => {
    // A snapshot that still shows the engine up is what lets a request meet the refusal at all;
    // at the default TTL of 0 a refusing engine is no candidate.
    await pool().a.api('PATCH', `${POOL_API}/settings`, { poolProbeSnapshotTtlMs: 300_000 });
    assert.equal((await chat(pool().a, REFUSED)).status, 200);
    await pool().a.engines.ollama!.setFault({ mode: 'refuse' });
    try {
      for (let i = 0; i < 2; i++) {
        const res = await chat(pool().a, REFUSED);
        const { json } = await pool().a.api<RoutingLogPage>('GET', `${POOL_API}/routing-log`);
        const row = json.entries.find((e) => e.id === header(res, 'x-hub-pool-request-id'));
        assert.match(row?.attempts[0]?.reason ?? '', /ECONNREFUSED/, 'the request met the refusal');
      }
      assert.equal(await withheldHere(pool().a, REFUSED), false);
    } finally {
      await pool().a.engines.ollama!.clearFaults();
      await pool().a.api('PATCH', `${POOL_API}/settings`, { poolProbeSnapshotTtlMs: 0 });
    }
  });
});
