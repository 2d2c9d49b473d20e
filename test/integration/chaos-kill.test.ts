/**
 * Processes killed with SIGKILL while they hold a request (issue 15, item 3): a peer Hub and an
 * engine, each before its answer starts and part-way through a stream. Three Hubs: A has none of
 * the models asked for, so every request is forwarded to B or C, which both hold them on engines
 * run as their own processes. Whichever of B and C takes a request is the one killed.
 *
 * Before the answer starts nothing is lost: A moves the request to the other peer and the caller
 * gets its answer. Once a stream has started it cannot be moved (the caller holds half an
 * answer), so the caller sees its stream fail, never end as if complete, and A's row settles
 * failed. Either way A holds nothing afterwards, and when the killed process is started again
 * (on its port, with its data) the pool takes it back with no operator action.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { eventually, freePort } from '../helpers/hub-process.js';
import { chat, header, type PoolHub, START_TIMEOUT_MS, TEST_TIMEOUT_MS, usePool, waitConnected } from '../helpers/pool-fixture.js';
import { EngineProcess, heldCounters } from '../helpers/chaos.js';

const OWN = 'own:1b'; // A's engine: a model nobody asks for here
/** One model per test, on B and C: a failure one test causes must not withhold the model the next asks for. */
const M = { hubBefore: 'hub-before:8b', hubStream: 'hub-stream:8b', engineBefore: 'engine-before:8b', engineStream: 'engine-stream:8b' };
const B_ONLY = 'b-only:8b';
const C_ONLY = 'c-only:8b';
const POLL_SECONDS = 10;

/** A stream long enough to be killed part-way: the simulator keeps going to max_tokens with ignore_eos. */
const LONG_STREAM = { max_tokens: 50_000, ignore_eos: true };

describe('a peer or an engine killed while it holds a request', () => {
  const engines: Record<'b' | 'c', EngineProcess | null> = { b: null, c: null };

  before(
    async () => {
      for (const l of ['b', 'c'] as const) {
        engines[l] = new EngineProcess(await freePort(), { dialect: 'ollama', models: [...Object.values(M), l === 'b' ? B_ONLY : C_ONLY] });
        await engines[l].start();
      }
    },
    { timeout: START_TIMEOUT_MS },
  );
  const pool = usePool<'a' | 'b' | 'c'>(() => ({
    hubs: {
      a: { ollama: { models: [OWN] } },
      b: { env: { OLLAMA_URL: engines.b!.url } },
      c: { env: { OLLAMA_URL: engines.c!.url } },
    },
    pairs: [
      ['a', 'b'],
      ['a', 'c'],
    ],
    settings: { poolHealthPollSeconds: POLL_SECONDS },
  }));
  before(
    async () => {
      // A must hold each peer's inventory before it can forward to it.
      for (const l of ['b', 'c'] as const) await waitForModels(pool().a, pool()[l], [...Object.values(M), l === 'b' ? B_ONLY : C_ONLY]);
    },
    { timeout: START_TIMEOUT_MS },
  );
  after(
    async () => {
      await Promise.all([engines.b?.kill(), engines.c?.kill()]);
    },
    { timeout: START_TIMEOUT_MS },
  );

  /** Which of B and C holds a request for `model` now (its engine's hang fault keeps it there). */
  async function holder(model: string): Promise<'b' | 'c'> {
    return eventually(async () => {
      for (const l of ['b', 'c'] as const) {
        const s = await engines[l]!.state();
        if (s.hanging === 1 && s.perModel[model]) return l;
      }
      return null;
    }, `B or C to hold the request for ${model}`);
  }

  const other = (l: 'b' | 'c'): 'b' | 'c' => (l === 'b' ? 'c' : 'b');

  async function aHoldsNothing(): Promise<void> {
    const held = await eventually(async () => {
      const h = heldCounters(await pool().a.status());
      return h.length === 0 ? h : null;
    }, 'A to hold nothing').catch(async () => heldCounters(await pool().a.status()));
    assert.deepEqual(held, [], `A still holds: ${held.join(', ')}`);
  }

  /** Opens a long stream for `model` through A and waits for its first chunk; returns the stream's rest and who serves it. */
  async function streamStarted(model: string) {
    const client = new OpenAI({ baseURL: `${pool().a.pool}/v1`, apiKey: 'unused-on-loopback', maxRetries: 0 });
    const { data, response } = await client.chat.completions
      .create({ model, stream: true, messages: [{ role: 'user', content: 'a long story' }], ...(LONG_STREAM as object) })
      .withResponse();
    const servedBy = response.headers.get('x-hub-pool-served-by');
    const id = response.headers.get('x-hub-pool-request-id')!;
    const it = data[Symbol.asyncIterator]();
    const first = await it.next();
    assert.equal(first.done, false, 'the stream started');
    const rest = (async () => {
      let finished: string | null = null;
      for (;;) {
        const n = await it.next();
        if (n.done) return finished;
        finished = n.value.choices[0]?.finish_reason ?? finished;
      }
    })().then(
      (finishReason) => ({ failed: false as const, finishReason }),
      (error: unknown) => ({ failed: true as const, error }),
    );
    return { servedBy, id, rest };
  }

  it('moves a request to the other peer when the peer holding it is killed before it answers', { timeout: TEST_TIMEOUT_MS }, async () => {
    const model = M.hubBefore;
    await Promise.all([engines.b!.setFault({ mode: 'hang', model }), engines.c!.setFault({ mode: 'hang', model })]);
    const answer = chat(pool().a, model);
    const victim = await holder(model);
    await engines[other(victim)]!.setFault({ mode: 'none', model });
    await pool()[victim].process.stop('SIGKILL');

    const res = await answer;
    assert.equal(res.status, 200, res.text);
    assert.equal(header(res, 'x-hub-pool-served-by'), pool()[other(victim)].name);
    const row = await pool().a.settledRow(header(res, 'x-hub-pool-request-id')!);
    assert.equal(row.outcome, 'served');
    assert.deepEqual(row.failedOverFrom, [pool()[victim].name]);
    // The killed Hub's connection to its engine went with it: the engine holds nothing.
    await eventually(async () => (await engines[victim]!.state()).hanging === 0, "the killed Hub's engine to let the request go");
    await aHoldsNothing();

    await engines[victim]!.setFault({ mode: 'none', model });
    await comesBack(pool()[victim], victim === 'b' ? B_ONLY : C_ONLY);
  });

  it('fails a stream whose peer is killed part-way, settles the row, and takes the peer back when it returns', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { servedBy, id, rest } = await streamStarted(M.hubStream);
    const victim = (['b', 'c'] as const).find((l) => pool()[l].name === servedBy)!;
    assert.ok(victim, `served by a peer, not ${servedBy}`);
    await pool()[victim].process.stop('SIGKILL');

    // Half an answer must not pass for a whole one: the stream fails.
    const ended = await rest;
    assert.equal(ended.failed, true, `the caller sees the stream fail, not end (${JSON.stringify(ended)})`);
    const row = await pool().a.settledRow(id);
    assert.equal(row.outcome, 'failed');
    assert.equal(row.node, pool()[victim].name);
    await aHoldsNothing();
    await comesBack(pool()[victim], victim === 'b' ? B_ONLY : C_ONLY);
  });

  it('moves a request to the other peer when the engine holding it is killed before it answers', { timeout: TEST_TIMEOUT_MS }, async () => {
    const model = M.engineBefore;
    await Promise.all([engines.b!.setFault({ mode: 'hang', model }), engines.c!.setFault({ mode: 'hang', model })]);
    const answer = chat(pool().a, model);
    const victim = await holder(model);
    await engines[other(victim)]!.setFault({ mode: 'none', model });
    await engines[victim]!.kill();

    const res = await answer;
    assert.equal(res.status, 200, res.text);
    assert.equal(header(res, 'x-hub-pool-served-by'), pool()[other(victim)].name);
    const row = await pool().a.settledRow(header(res, 'x-hub-pool-request-id')!);
    assert.equal(row.outcome, 'served');
    assert.deepEqual(row.failedOverFrom, [pool()[victim].name]);
    await aHoldsNothing();
    await hubHoldsNothing(pool()[victim]);

    await engines[victim]!.start();
    await comesBack(pool()[victim], victim === 'b' ? B_ONLY : C_ONLY);
  });

  it('fails a stream whose engine is killed part-way, frees both Hubs, and serves again once the engine returns', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { servedBy, id, rest } = await streamStarted(M.engineStream);
    const victim = (['b', 'c'] as const).find((l) => pool()[l].name === servedBy)!;
    assert.ok(victim, `served by a peer, not ${servedBy}`);
    await engines[victim]!.kill();

    const ended = await rest;
    assert.equal(ended.failed, true, `the caller sees the stream fail, not end (${JSON.stringify(ended)})`);
    const row = await pool().a.settledRow(id);
    assert.equal(row.outcome, 'failed');
    await aHoldsNothing();
    await hubHoldsNothing(pool()[victim]);

    await engines[victim]!.start();
    await comesBack(pool()[victim], victim === 'b' ? B_ONLY : C_ONLY);
  });

  async function hubHoldsNothing(hub: PoolHub): Promise<void> {
    const held = await eventually(async () => {
      const h = heldCounters(await hub.status());
      return h.length === 0 ? h : null;
    }, `${hub.name} to hold nothing`).catch(async () => heldCounters(await hub.status()));
    assert.deepEqual(held, [], `${hub.name} still holds: ${held.join(', ')}`);
  }

  /**
   * The pool has taken `hub` back with no one acting: restarted if it was killed, A sees it
   * connected with its models again, and a request for the model only it holds is served by it.
   */
  async function comesBack(hub: PoolHub, onlyModel: string): Promise<void> {
    if (!hub.alive) await hub.restart();
    // The Hub sees its engine again, and A polls it after that: A's picture is new, not the one from before the kill.
    await eventually(
      async () => (await hub.status()).localNode.backends.some((b) => b.healthy && b.models.some((m) => m.startsWith(onlyModel))),
      `${hub.name} to see its engine`,
    );
    await pool().a.nextPoll(hub, 3 * POLL_SECONDS * 1000);
    await waitForModels(pool().a, hub, [onlyModel]);
    let last = '';
    const res = await eventually(async () => {
      const r = await chat(pool().a, onlyModel);
      last = `${r.status} ${r.text}`;
      return r.status === 200 ? r : null;
    }, `A to serve ${onlyModel} through ${hub.name} again`).catch((err: Error) => {
      throw new Error(`${err.message}; last answer: ${last}`);
    });
    assert.equal(header(res, 'x-hub-pool-served-by'), hub.name);
  }
});

/** Waits until `viewer` shows `other` connected and offering every one of `models`. */
async function waitForModels(viewer: PoolHub, other: PoolHub, models: readonly string[]): Promise<void> {
  await waitConnected(viewer, other);
  await eventually(
    async () => {
      const p = await viewer.peer(other);
      if (p === null || p.status !== 'connected' || p.backends === null) return null;
      const held = new Set(p.backends.flatMap((b) => b.models));
      return models.every((m) => held.has(m) || held.has(`${m}:latest`));
    },
    `${viewer.name} to show ${other.name}'s models ${models.join(', ')}`,
  );
}
