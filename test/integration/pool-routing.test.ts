/**
 * Pooled routing across three real Hubs on loopback, each fronting its own simulated engines
 * (issue 4): a model only a peer holds is served by that peer, in both SDKs' dialects; both
 * Hubs log the request under one id; the local head start decides when work leaves a busy
 * Hub; the listings answer for the pool; a pin reorders but never forces; auto means the
 * same model everywhere; outbound off keeps the proxy local; a committed stream is never
 * retried; and a peer's engine refusing its key moves the request on without touching the
 * pairing.
 *
 * The Hubs poll each other every 300 s, so after the first poll nothing here depends on a
 * poll: every decision below is made on the snapshot the pairing left.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { Ollama } from 'ollama';
import { request } from 'undici';
import { chat, getJson, header, HeldRequests, post, TEST_TIMEOUT_MS, usePool } from '../helpers/pool-fixture.js';
import { eventually } from '../helpers/hub-process.js';

const SHARED = 'shared:8b'; // on A and B
const HOLD = 'hold:1b'; // on A only: the engine never answers it, so it keeps A busy
const B_ONLY = 'b-only:8b';
const B_VLLM = 'org/b-vllm-only';
const BC = 'bc:8b'; // on B and C; B ranks first on A on a tie (A paired with B first)
const BIG = 'llama3.3:70b'; // on B only: the largest chat model in the pool
const C_ONLY = 'c-only:8b';
const EMBED = 'nomic-embed-text:latest';
const MESSAGES = [{ role: 'user' as const, content: 'hello' }];

type L = 'a' | 'b' | 'c';

describe('pooled routing across three Hubs', () => {
  const pool = usePool<L>({
    hubs: {
      // keepAliveMs -1: a model stays loaded, so /api/ps answers the same from one call to the next.
      // The head-start table below holds another model's turns on A's engine to make a queue; local
      // engine contention (on by default) would move A behind B for exactly that, so it is off here
      // and these tests read the ranker alone. Contention has its own tests (pool-contention-slots).
      // A logs at debug: a refusal it has warned about is noted there, which the refusal test counts.
      a: { ollama: { models: [SHARED, HOLD], keepAliveMs: -1 }, env: { HUB_POOL_CONTENTION_PLACEMENT: 'off', HUB_LOG_LEVEL: 'debug' } },
      b: { ollama: { models: [SHARED, B_ONLY, BC, BIG], keepAliveMs: -1 }, vllm: { models: [B_VLLM] } },
      c: { ollama: { models: [BC, C_ONLY, { name: EMBED, capabilities: ['embedding'] }], keepAliveMs: -1 } },
    },
    pairs: [
      ['a', 'b'],
      ['a', 'c'],
      ['b', 'c'],
    ],
    settings: { poolHealthPollSeconds: 300 },
  });

  describe('a model only a peer holds', () => {
    it('is answered by that peer through the OpenAI SDK, streamed and not, naming the peer and the engine it used', { timeout: TEST_TIMEOUT_MS }, async () => {
      const { a, b } = pool();
      const openai = new OpenAI({ baseURL: `${a.pool}/v1`, apiKey: 'unused', maxRetries: 0 });
      const bBefore = b.engines.ollama!.state().requests;

      const whole = await openai.chat.completions.create({ model: B_ONLY, messages: MESSAGES }).withResponse();
      assert.ok(whole.data.choices[0]?.message.content, 'an answer came back');
      assert.equal(whole.response.headers.get('x-hub-pool-served-by'), b.name);
      assert.equal(whole.response.headers.get('x-hub-pool-backend'), 'ollama');
      assert.equal(whole.response.headers.get('x-hub-pool-model'), B_ONLY);

      const streamed = await openai.chat.completions.create({ model: B_ONLY, messages: MESSAGES, stream: true }).withResponse();
      assert.equal(streamed.response.headers.get('x-hub-pool-served-by'), b.name);
      assert.equal(streamed.response.headers.get('x-hub-pool-backend'), 'ollama');
      let text = '';
      let finish: string | null = null;
      for await (const chunk of streamed.data) {
        text += chunk.choices[0]?.delta?.content ?? '';
        finish = chunk.choices[0]?.finish_reason ?? finish;
      }
      assert.ok(text.length > 0);
      assert.equal(finish, 'stop');
      assert.equal(b.engines.ollama!.state().requests, bBefore + 2, "both requests reached B's engine");

      // The same on B's vLLM: the header names the engine B actually used.
      const vllm = await openai.chat.completions.create({ model: B_VLLM, messages: MESSAGES }).withResponse();
      assert.equal(vllm.response.headers.get('x-hub-pool-served-by'), b.name);
      assert.equal(vllm.response.headers.get('x-hub-pool-backend'), 'vllm');
    });

    it('is answered by that peer through the ollama client, streamed and not', { timeout: TEST_TIMEOUT_MS }, async () => {
      const { a, b } = pool();
      const seen: { headers: Headers | null } = { headers: null };
      const ollama = new Ollama({
        host: a.pool,
        fetch: async (input, init) => {
          const res = await fetch(input, init);
          seen.headers = res.headers;
          return res;
        },
      });
      const attribution = () => ({ servedBy: seen.headers?.get('x-hub-pool-served-by'), backend: seen.headers?.get('x-hub-pool-backend') });
      const expected = { servedBy: b.name, backend: 'ollama' };

      const whole = await ollama.chat({ model: B_ONLY, messages: MESSAGES, stream: false });
      assert.equal(whole.done, true);
      assert.deepEqual(attribution(), expected);

      const stream = await ollama.chat({ model: B_ONLY, messages: MESSAGES, stream: true });
      let last: { done: boolean } | null = null;
      for await (const part of stream) last = part;
      assert.equal(last?.done, true);
      assert.deepEqual(attribution(), expected);

      const generated = await ollama.generate({ model: B_ONLY, prompt: 'why', stream: false });
      assert.equal(generated.done, true);
      assert.deepEqual(attribution(), expected);
    });
  });

  it("joins both Hubs' routing-log rows on the request id: outbound on the entry Hub, inbound on the peer", { timeout: TEST_TIMEOUT_MS }, async () => {
    const { a, b } = pool();
    const res = await chat(a, B_ONLY);
    assert.equal(res.status, 200, res.text);
    const id = header(res, 'x-hub-pool-request-id');
    assert.ok(id, 'the answer names its request id');

    const out = await a.settledRow(id);
    assert.equal(out.direction, 'outbound');
    assert.equal(out.node, b.name);
    assert.equal(out.backend, 'ollama');
    assert.equal(out.outcome, 'served');
    assert.equal(out.model, B_ONLY);

    const inbound = await b.settledRow(id);
    assert.equal(inbound.direction, 'inbound');
    assert.equal(inbound.node, a.name, 'the inbound row names the Hub that sent the work');
    assert.equal(inbound.backend, 'ollama');
    assert.equal(inbound.outcome, 'served');
    assert.equal(inbound.model, B_ONLY);
    assert.equal(inbound.clientClosed, false);
  });

  it('hands work to an idle peer only when the peer is at least poolLocalAffinity emptier than the entry Hub', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { a, b } = pool();
    const held = new HeldRequests(a, HOLD);
    await a.engines.ollama!.setFault({ mode: 'hang', model: HOLD });
    try {
      // [poolLocalAffinity, requests in flight on A's engine, who serves the next shared-model request]
      const table: readonly (readonly [number, number, string])[] = [
        [0, 0, 'local'], // a tie goes to local: no hop
        [0, 1, b.name],
        [1, 1, 'local'], // the default head start: one queued request
        [1, 2, b.name], // B at 0 is now 2 - 1 emptier
        [2, 2, 'local'],
        [2, 3, b.name],
      ];
      const got: string[] = [];
      for (const [affinity, inFlight] of table) {
        if (held.count < inFlight) await held.hold(inFlight - held.count);
        await a.patchSettings({ poolLocalAffinity: affinity });
        const res = await chat(a, SHARED);
        assert.equal(res.status, 200, res.text);
        got.push(`affinity ${affinity}, ${inFlight} in flight on A -> ${header(res, 'x-hub-pool-served-by')}`);
      }
      assert.deepEqual(
        got,
        table.map(([affinity, inFlight, where]) => `affinity ${affinity}, ${inFlight} in flight on A -> ${where}`),
      );
    } finally {
      await held.releaseAll();
      await a.engines.ollama!.clearFaults();
      await a.patchSettings({ poolLocalAffinity: 1 });
    }
    // The held requests' hang-ups reached A's engine: nothing is left waiting there.
    assert.equal(a.engines.ollama!.state().hanging, 0);
  });

  describe('listings', () => {
    it('/v1/models names every model the pool serves, peer-only ones owned by hub-pool', { timeout: TEST_TIMEOUT_MS }, async () => {
      const { a } = pool();
      const res = await getJson(a, '/v1/models');
      assert.equal(res.status, 200, res.text);
      const data = res.json.data as { id: string; owned_by: string }[];
      const owner = new Map(data.map((m) => [m.id, m.owned_by]));
      assert.equal(data.length, owner.size, 'no model is listed twice');
      for (const local of [SHARED, HOLD]) assert.notEqual(owner.get(local), 'hub-pool', `${local} is A's own and listed as its engine lists it`);
      for (const peerOnly of [B_ONLY, B_VLLM, BC, BIG, C_ONLY, EMBED]) assert.equal(owner.get(peerOnly), 'hub-pool', `${peerOnly} is listed as a pool model`);
    });

    it(
      '/api/tags names the peer-only models a native request can be placed on, with empty or zero facts rather than invented ones',
      { timeout: TEST_TIMEOUT_MS },
      async () => {
        const { a } = pool();
        const res = await getJson(a, '/api/tags');
        assert.equal(res.status, 200, res.text);
        const models = res.json.models as { name: string; size: number; digest: string; modified_at: string }[];
        const byName = new Map(models.map((m) => [m.name, m]));
        const fromPeer = byName.get(B_ONLY);
        assert.ok(fromPeer, `${B_ONLY} is listed`);
        assert.equal(fromPeer.size, 0);
        assert.equal(fromPeer.digest, '');
        // The zero time, not "": Ollama's own client reads modified_at as a time and refuses a listing it cannot parse.
        assert.equal(fromPeer.modified_at, '0001-01-01T00:00:00Z');
        assert.ok((byName.get(SHARED)?.digest ?? '').length > 0, "A's own model keeps its engine's digest");
        assert.ok(!byName.has(B_VLLM), 'a model only a vLLM holds is not offered to the native dialect');
      },
    );

    it("answers the listings from peers when A's own engines are down, while /api/ps and /api/version stay A's own", { timeout: TEST_TIMEOUT_MS }, async () => {
      const { a } = pool();
      const engine = a.engines.ollama!;
      await engine.setFault({ mode: 'refuse' });
      try {
        const models = await getJson(a, '/v1/models');
        assert.equal(models.status, 200, models.text);
        const ids = (models.json.data as { id: string; owned_by: string }[]).map((m) => m.id);
        assert.ok(ids.includes(B_ONLY) && ids.includes(SHARED), `peers' models are listed: ${ids.join(', ')}`);
        assert.ok(!ids.includes(HOLD), "A's down engine's own model is not");
        const tags = await getJson(a, '/api/tags');
        assert.equal(tags.status, 200, tags.text);
        assert.ok((tags.json.models as { name: string }[]).some((m) => m.name === B_ONLY));

        // Questions about this machine are not answered by another one, and the 502 says so rather
        // than that no peer has models, when B and C hold several.
        const ps = await getJson(a, '/api/ps');
        assert.equal(ps.status, 502, ps.text);
        assert.match(ps.json.error, /never asked of a peer/);
        for (const machine of [ps, await getJson(a, '/api/version')]) {
          assert.equal(machine.status, 502, machine.text);
          assert.doesNotMatch(machine.json.error, /no peer has/);
        }
      } finally {
        await engine.restore();
      }
    });

    it("/api/ps and /api/version are A's engine's own answers, whatever the peers run", { timeout: TEST_TIMEOUT_MS }, async () => {
      const { a, b } = pool();
      assert.equal((await chat(a, B_ONLY)).status, 200, 'B has B_ONLY loaded');
      const direct = async (url: string, path: string) => (await (await request(`${url}${path}`)).body.json()) as Record<string, unknown>;
      const ps = await getJson(a, '/api/ps');
      assert.equal(ps.status, 200, ps.text);
      const names = (ps.json.models as { name: string }[]).map((m) => m.name).sort();
      const aEngine = ((await direct(a.engines.ollama!.url, '/api/ps')).models as { name: string }[]).map((m) => m.name).sort();
      assert.deepEqual(names, aEngine);
      const bEngine = ((await direct(b.engines.ollama!.url, '/api/ps')).models as { name: string }[]).map((m) => m.name);
      assert.ok(bEngine.includes(B_ONLY) && !names.includes(B_ONLY), "what B has loaded is not in A's /api/ps");

      const version = await getJson(a, '/api/version');
      assert.equal(version.status, 200);
      assert.deepEqual(version.json, await direct(a.engines.ollama!.url, '/api/version'));
    });

    it('/api/show for a model only B holds is answered by B, and opens no routing-log row', { timeout: TEST_TIMEOUT_MS }, async () => {
      const { a, b } = pool();
      const rowsBefore = (await a.routingLog()).length;
      const shown = await post(a, '/api/show', { model: B_ONLY });
      assert.equal(shown.status, 200, shown.text);
      const fromB = await request(`${b.engines.ollama!.url}/api/show`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: B_ONLY }),
      });
      assert.deepEqual(shown.json, await fromB.body.json(), "B's engine's description, relayed");
      assert.equal((await a.routingLog()).length, rowsBefore);
    });
  });

  it(
    'a pin reorders the candidates but never forces one: the walk goes on past it, and a pin with no candidate does nothing',
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const { a, b, c } = pool();
      const pins = '/api/inference/pool/pins';
      const pinTo = async (model: string, target: string) => {
        const res = await a.api('POST', pins, { scope: 'model', model, target });
        assert.equal(res.status, 200, JSON.stringify(res.json));
      };
      const served = async (model: string) => {
        const res = await chat(a, model);
        assert.equal(res.status, 200, res.text);
        return { by: header(res, 'x-hub-pool-served-by'), row: await a.settledRow(String(header(res, 'x-hub-pool-request-id'))) };
      };
      try {
        assert.equal((await served(BC)).by, b.name, 'unpinned, B ranks first on the tie');

        await pinTo(BC, c.name);
        const pinned = await served(BC);
        assert.equal(pinned.by, c.name, 'the pin moves C to the front');
        assert.deepEqual(pinned.row.pin, { scope: 'model', model: BC, target: c.name, applied: true });

        // The pinned node failing does not fail the request: B is still behind it in the walk.
        await c.engines.ollama!.setFault({ mode: 'error', status: 503, model: BC, count: 1 });
        const pastPin = await served(BC);
        assert.equal(pastPin.by, b.name);
        assert.deepEqual(pastPin.row.failedOverFrom, [c.name]);

        // C holds no B_ONLY: the pin matches no candidate and the ranked order stands.
        await pinTo(B_ONLY, c.name);
        const noOp = await served(B_ONLY);
        assert.equal(noOp.by, b.name);
        assert.deepEqual(noOp.row.pin, { scope: 'model', model: B_ONLY, target: c.name, applied: false });
      } finally {
        await c.engines.ollama!.clearFaults();
        for (const model of [BC, B_ONLY]) await a.api('DELETE', `${pins}?scope=model&model=${encodeURIComponent(model)}`);
      }
    },
  );

  describe('auto', () => {
    it('resolves to the same model on every Hub, and never to an embedding model', { timeout: TEST_TIMEOUT_MS }, async () => {
      const picks: Record<string, string | null> = {};
      for (const hub of pool().hubs) {
        const res = await chat(hub, 'auto');
        assert.equal(res.status, 200, `${hub.name}: ${res.text}`);
        picks[hub.name] = header(res, 'x-hub-pool-model');
      }
      for (const [hub, model] of Object.entries(picks)) assert.ok(model && !/embed/i.test(model), `${hub} resolved auto to ${model}`);
      const distinct = new Set(Object.values(picks));
      assert.equal(distinct.size, 1, `every Hub resolves auto alike; got ${JSON.stringify(picks)}`);
    });

    it('/api/show on auto describes the model a chat on auto runs on, on every Hub', { timeout: TEST_TIMEOUT_MS }, async () => {
      for (const hub of pool().hubs) {
        const model = header(await post(hub, '/api/chat', { model: 'auto', messages: MESSAGES, stream: false }), 'x-hub-pool-model');
        assert.ok(model, `${hub.name} resolved auto`);
        const onAuto = await post(hub, '/api/show', { model: 'auto' });
        const named = await post(hub, '/api/show', { model });
        assert.equal(onAuto.status, 200, `${hub.name}: ${onAuto.text}`);
        assert.deepEqual(onAuto.json, named.json, `${hub.name}: /api/show auto describes ${model}`);
      }
    });
  });

  describe('outbound off', () => {
    it('keeps apps on the proxy and routes locally; back on, the peer serves again', { timeout: TEST_TIMEOUT_MS }, async () => {
      const { a, b } = pool();
      await a.patchSettings({ poolOutboundEnabled: false });
      try {
        const status = await a.status();
        assert.equal(status.routingActive, false);
        assert.deepEqual(status.directions.outbound, { enabled: false, disabledBy: 'setting', envLocked: false });

        const peerOnly = await chat(a, B_ONLY);
        assert.equal(peerOnly.status, 502);
        assert.match(peerOnly.json.error.message, /No pool node currently has model "b-only:8b"/);

        const local = await chat(a, SHARED);
        assert.equal(local.status, 200, local.text);
        assert.equal(header(local, 'x-hub-pool-served-by'), 'local');

        const listed = ((await getJson(a, '/v1/models')).json.data as { id: string }[]).map((m) => m.id);
        assert.ok(!listed.includes(B_ONLY), 'a model only a peer holds is not offered while outbound is off');
      } finally {
        await a.patchSettings({ poolOutboundEnabled: true });
      }
      const back = await chat(a, B_ONLY);
      assert.equal(back.status, 200, back.text);
      assert.equal(header(back, 'x-hub-pool-served-by'), b.name);
    });
  });

  it('never retries a stream the peer already committed: the app sees the cut, the next candidate receives nothing', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { a, b, c } = pool();
    await b.engines.ollama!.setFault({ mode: 'cut', model: BC });
    try {
      const cBefore = c.engines.ollama!.state().requests;
      const res = await request(`${a.pool}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: BC, stream: true, messages: MESSAGES }),
      });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['x-hub-pool-served-by'], b.name);
      let text = '';
      await assert.rejects(async () => {
        for await (const chunk of res.body) text += chunk.toString();
      }, 'the stream ends in a dropped connection, not a clean end');
      assert.ok(text.startsWith('data: '), 'the stream had started');
      assert.ok(!text.includes('[DONE]'));
      assert.equal(c.engines.ollama!.state().requests, cBefore, 'C, the next candidate, was never asked');

      const row = await a.settledRow(String(res.headers['x-hub-pool-request-id']));
      assert.equal(row.node, b.name);
      assert.equal(row.attempt, 1);
      assert.deepEqual(row.failedOverFrom, []);
      assert.equal(row.outcome, 'failed');
      // The row says the answer was cut off on B, and the walk stopped there.
      assert.match(row.reason ?? '', /truncated-upstream|connection dropped mid-body/);
    } finally {
      await b.engines.ollama!.clearFaults();
    }
  });

  it(
    "a peer engine's 401 is not a pairing refusal (once it dropped the peer's Ollama models): moves on, keeps the pairing, warns once, reaches the app last",
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const { a, b, c } = pool();
      const engine = b.engines.ollama!;
      await engine.setFault({ mode: 'error', status: 401, model: BC });
      await engine.setFault({ mode: 'error', status: 401, model: B_ONLY });
      // Every refusal A meets is noted in one line: the warning, or at debug once it has warned.
      const refusalLines = () =>
        a
          .log()
          .split('\n')
          .filter((line) => line.includes('check the API key') || line.includes("a peer's engine refused the key"));
      const warnings = () => refusalLines().filter((line) => line.includes('check the API key'));
      try {
        const movedOn = await chat(a, BC);
        assert.equal(movedOn.status, 200, movedOn.text);
        assert.equal(header(movedOn, 'x-hub-pool-served-by'), c.name);
        const row = await a.settledRow(String(header(movedOn, 'x-hub-pool-request-id')));
        assert.deepEqual(row.failedOverFrom, [b.name]);
        assert.equal(row.attempts[0]?.status, 401);
        assert.equal(row.attempts[0]?.backend, 'ollama');

        // The pairing and B's inventory are untouched: B is still connected and still listed.
        const peer = await a.peer(b);
        assert.equal(peer?.status, 'connected');
        assert.ok(
          peer?.backends?.some((e) => e.models.includes(B_ONLY)),
          "A still holds B's inventory",
        );
        const listed = ((await getJson(a, '/v1/models')).json.data as { id: string }[]).map((m) => m.id);
        assert.ok(listed.includes(B_ONLY));

        // B is the only candidate: the app gets the engine's own 401, not a 502.
        const last = await chat(a, B_ONLY);
        assert.equal(last.status, 401, last.text);
        assert.equal(header(last, 'x-hub-pool-served-by'), b.name);
        const lastRow = await a.settledRow(String(header(last, 'x-hub-pool-request-id')));
        assert.equal(lastRow.outcome, 'failed');
        assert.deepEqual(lastRow.requestError, { signature: 'client-error', basis: 'status', confirms: null });

        // One warning for the peer, engine and status, however often the refusal recurs: all three
        // refusals (the moved-on request, the last candidate's, this one) are noted, one of them at warn.
        await chat(a, BC);
        await eventually(() => refusalLines().length >= 3, 'the three refusals to be noted in the log');
        const lines = warnings();
        assert.equal(lines.length, 1, refusalLines().join('\n'));
        const warned = JSON.parse(lines[0]!) as { level: number; peer: string; engine: string; status: number; msg: string };
        assert.equal(warned.level, 40);
        assert.deepEqual([warned.peer, warned.engine, warned.status], [b.name, 'ollama', 401]);
        assert.match(warned.msg, /hub-b\.tail0\.ts\.net's ollama answered 401: check the API key/);
      } finally {
        await engine.clearFaults();
      }
    },
  );
});

describe('auto in a pool with no chat model', () => {
  const pool = usePool<'a' | 'b'>({
    hubs: {
      a: { ollama: { models: [{ name: EMBED, capabilities: ['embedding'] }] } },
      b: { ollama: { models: [{ name: 'mxbai-embed-large:latest', capabilities: ['embedding'] }] } },
    },
    pairs: [['a', 'b']],
    settings: { poolHealthPollSeconds: 300 },
  });

  it('answers 502 saying so, on either Hub', { timeout: TEST_TIMEOUT_MS }, async () => {
    for (const hub of pool().hubs) {
      const res = await chat(hub, 'auto');
      assert.equal(res.status, 502, res.text);
      assert.equal(res.json.error.code, 'HUB_ERR_NO_AUTO_MODEL');
      assert.match(res.json.error.message, /No chat model/);
    }
  });

  it('names the failed call by its request id and logs it, as any request no node can take', { timeout: TEST_TIMEOUT_MS }, async () => {
    const res = await chat(pool().a, 'auto');
    assert.equal(res.status, 502, res.text);
    const id = header(res, 'x-hub-pool-request-id');
    assert.ok(id, 'the 502 names its request id');
    const row = await pool().a.settledRow(id);
    assert.equal(row.model, 'auto');
    assert.equal(row.candidates, 0);
    assert.equal(row.outcome, 'failed');
  });
});
