/**
 * Slots of a real llama.cpp engine, seen through a Hub: a second request waits for a one-slot
 * engine and runs beside the first on a two-slot one, and a caller hanging up stops the
 * generation on the engine. Only orderings and ratios within one run are compared, never
 * absolute times.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { startHubProcess, type HubProcess } from '../helpers/hub-process.js';
import { RUN_TO_LIMIT, startLlamaEngine, type LlamaEngine, type RequestRecord } from '../helpers/llama-engine.js';
import { scaled } from '../helpers/time-scale.js';
import { startTogether } from '../helpers/start-together.js';

const MODEL = 'cihub-tiny:latest';

interface StreamTimes {
  /** performance.now() when the first frame arrived, and when the done frame did. */
  first: Promise<number>;
  done: Promise<number>;
}

/** Streams an Ollama chat through `base` and notes when its first and final frames arrive. */
function streamChat(base: string, content: string, numPredict: number, signal?: AbortSignal): StreamTimes {
  let gotFirst!: (t: number) => void;
  const first = new Promise<number>((resolve) => (gotFirst = resolve));
  const done = (async () => {
    const res = await request(`${base}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content }], ...RUN_TO_LIMIT, options: { temperature: 0, num_predict: numPredict } }),
      ...(signal === undefined ? {} : { signal }),
    });
    assert.equal(res.statusCode, 200);
    let seen = '';
    for await (const chunk of res.body) {
      if (seen === '') gotFirst(performance.now());
      seen += (chunk as Buffer).toString();
    }
    assert.match(seen, /"done":true/);
    return performance.now();
  })();
  done.catch(() => undefined);
  return { first, done };
}

/** The two records the engine logs for the next two requests. */
async function nextTwo(engine: LlamaEngine, run: () => Promise<void>): Promise<[RequestRecord, RequestRecord]> {
  const seen = engine.requests().length;
  await run();
  const after = await waitForCount(engine, seen + 2);
  const [a, b] = after.slice(seen).sort((x, y) => x.id - y.id);
  return [a!, b!];
}

async function waitForCount(engine: LlamaEngine, n: number): Promise<RequestRecord[]> {
  for (const deadline = Date.now() + scaled(30_000); Date.now() < deadline; await new Promise((r) => setTimeout(r, 10))) {
    if (engine.requests().length >= n) return engine.requests();
  }
  throw new Error(`the engine logged ${engine.requests().length} requests, expected ${n}`);
}

describe('slots of a real llama.cpp engine, through the Hub', () => {
  let oneSlot: LlamaEngine;
  let twoSlots: LlamaEngine;
  let hubOne: HubProcess;
  let hubTwo: HubProcess;

  before(async () => {
    oneSlot = await startLlamaEngine({ size: 'tiny', slots: 1, ctx: 4096 });
    twoSlots = await startLlamaEngine({ size: 'tiny', slots: 2, ctx: 4096 });
    [hubOne, hubTwo] = await startTogether([startHubProcess({ env: { OLLAMA_URL: oneSlot.url } }), startHubProcess({ env: { OLLAMA_URL: twoSlots.url } })]);
  });
  after(async () => {
    await Promise.all([hubOne?.stop(), hubTwo?.stop()]);
    await Promise.all([oneSlot?.close(), twoSlots?.close()]);
  });

  /** A long request, then a short one sent once the long one is streaming. */
  async function longThenShort(hub: HubProcess, engine: LlamaEngine) {
    let long!: StreamTimes;
    let short!: StreamTimes;
    const [a, b] = await nextTwo(engine, async () => {
      long = streamChat(hub.pool, 'a long answer please', 800);
      await long.first;
      short = streamChat(hub.pool, 'a short one', 20);
      await Promise.all([long.done, short.done]);
    });
    return { a, b, longDone: await long.done, shortFirst: await short.first };
  }

  it('makes a second request wait for a one-slot engine', async () => {
    const { a, b, longDone, shortFirst } = await longThenShort(hubOne, oneSlot);
    assert.ok(shortFirst > longDone, 'the short answer began only after the long one ended');
    assert.ok(b.slotAt >= a.endedAt, 'the engine gave the slot to the second request when the first let go of it');
    assert.ok(b.queueMs > 0.5 * a.decodeMs, `queued ${b.queueMs.toFixed(1)} ms against ${a.decodeMs.toFixed(1)} ms of generation`);
    assert.deepEqual([a.slot, b.slot, a.evalCount, b.evalCount], [0, 0, 800, 20]);
  });

  it('runs a second request beside the first on a two-slot engine', async () => {
    const { a, b, longDone, shortFirst } = await longThenShort(hubTwo, twoSlots);
    assert.ok(shortFirst < longDone, 'the short answer began while the long one was still streaming');
    assert.ok(b.slotAt < a.endedAt);
    assert.notEqual(a.slot, b.slot);
    assert.ok(b.queueMs < 0.1 * a.decodeMs, `queued ${b.queueMs.toFixed(1)} ms against ${a.decodeMs.toFixed(1)} ms of generation`);
  });

  it('stops generating on the engine when the caller hangs up, and frees the slot', async () => {
    const limit = 4000;
    const seen = oneSlot.requests().length;
    const ac = new AbortController();
    const stream = streamChat(hubOne.pool, 'keep going until I leave', limit, ac.signal);
    await stream.first;
    ac.abort();
    await assert.rejects(stream.done);
    const [record] = (await waitForCount(oneSlot, seen + 1)).slice(seen);
    assert.equal(record?.outcome, 'aborted', 'the engine reports the generation as stopped by the hang-up');
    assert.ok(record.evalCount < limit, `stopped after ${record.evalCount} of ${limit} tokens`);
    assert.equal(oneSlot.active(), 0);

    // The slot is free again: the next request does not queue behind the abandoned one.
    const next = streamChat(hubOne.pool, 'are you free', 10);
    await next.done;
    const [after] = (await waitForCount(oneSlot, seen + 2)).slice(seen + 1);
    assert.equal(after?.outcome, 'length');
    assert.ok(after.queueMs < record.decodeMs, 'it did not wait for the abandoned generation to run its course');
  });
});
