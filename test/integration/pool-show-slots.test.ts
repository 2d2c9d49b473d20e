/**
 * The peer POST /api/show lookup is the one request slot-aware placement leaves alone (spec,
 * "Slot-aware placement"; issue 10, item 5, "the show exemption"): the peer daemon answers it
 * from the model's metadata on disk, so it takes no slot, and a full peer the ranker chose is
 * still asked first. hub-a holds no copy of the model, so it asks a peer; hub-b and hub-c hold it,
 * each at its own trained context length, so the answer names the peer that gave it.
 *
 * The set-up, as hub-a reads it after a health poll: hub-b states 1 slot and has 1 request in
 * flight (full), hub-c states 4 and has 2 (free, but busier). The ranker puts hub-b first; a
 * chat goes to hub-c, because slots moved hub-b behind it; /api/show still asks hub-b.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HeldRequests, LONG_TEST_TIMEOUT_MS, nodeName, post, usePool } from '../helpers/pool-fixture.js';
import { eventually } from '../helpers/hub-process.js';

const MODEL = 'shared:8b';
const HOLD = 'hold:1b'; // the engines never answer it: a request held open on a node
const B_CONTEXT = 8192;
const C_CONTEXT = 16384;
const POLL_SECONDS = 10;

describe('slot-aware placement and the peer /api/show lookup', () => {
  const pool = usePool<'a' | 'b' | 'c'>({
    hubs: {
      a: { ollama: { models: ['a-only:8b'] } },
      b: { ollama: { models: [{ name: MODEL, contextLength: B_CONTEXT }, HOLD] }, settings: { inferenceOllamaSlots: 1 } },
      c: { ollama: { models: [{ name: MODEL, contextLength: C_CONTEXT }, HOLD] }, settings: { inferenceOllamaSlots: 4 } },
    },
    pairs: [
      ['a', 'b'],
      ['a', 'c'],
    ],
    settings: { poolHealthPollSeconds: POLL_SECONDS },
  });

  it(
    'a full peer the ranker chose answers /api/show, though a chat for the same model goes behind it to a peer with a free slot',
    { timeout: LONG_TEST_TIMEOUT_MS },
    async () => {
      const { a, b, c } = pool();
      await a.patchSettings({ poolSlotAwareness: 1 });
      const engines = [b.engines.ollama!, c.engines.ollama!];
      await Promise.all(engines.map((e) => e.setFault({ mode: 'hang', model: HOLD })));
      const onB = new HeldRequests(b, HOLD, { servedBy: b.engines.ollama! });
      const onC = new HeldRequests(c, HOLD, { servedBy: c.engines.ollama! });
      try {
        await onB.hold(1);
        await onC.hold(2);
        // What hub-a read at its last poll of each: the slots each states and the requests on its engine.
        const seen = async (hub: typeof b) => (await a.status()).peers.find((p) => p.nodeFqdn === hub.name);
        const reads = async (hub: typeof b, slots: number, inFlight: number) => {
          const p = await seen(hub);
          return p?.ollamaSlots === slots && p.inFlightRequests === inFlight;
        };
        await eventually(() => reads(b, 1, 1), 'a to read hub-b full: 1 in flight on 1 slot', 3 * POLL_SECONDS * 1000);
        await eventually(() => reads(c, 4, 2), 'a to read hub-c free: 2 in flight on 4 slots', 3 * POLL_SECONDS * 1000);

        const chat = await post(a, '/api/chat', { model: MODEL, stream: false, messages: [{ role: 'user', content: 'hi' }] });
        assert.equal(chat.status, 200, chat.text.slice(0, 300));
        const row = await a.settledRow(String(chat.headers['x-hub-pool-request-id']));
        assert.equal(row.node, nodeName('c'), 'the chat takes a slot, so the full hub-b goes behind hub-c');
        assert.deepEqual(
          row.slots?.demoted.map((d) => d.node),
          [nodeName('b')],
        );

        const show = await post(a, '/api/show', { model: MODEL });
        assert.equal(show.status, 200, show.text.slice(0, 300));
        const info = (show.json as { model_info: Record<string, unknown> }).model_info;
        const contextLength = Object.entries(info).find(([k]) => k.endsWith('.context_length'))?.[1];
        assert.equal(contextLength, B_CONTEXT, 'the lookup takes no slot: hub-b, first by the ranker and full, still describes the model');
      } finally {
        await Promise.all([onB.releaseAll(), onC.releaseAll()]);
        await Promise.all(engines.map((e) => e.clearFaults()));
      }
    },
  );
});
