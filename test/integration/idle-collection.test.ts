/**
 * The garbage a burst leaves is collected once the Hub goes quiet (issue 13 item 2;
 * src/util/idle-collection.ts), through a real Hub: a burst of large prompts, then the Hub's own
 * debug line saying what one collection freed.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { startSimEngine, type SimEngine } from '../../src/sim/engine.js';
import { IDLE_COLLECTION_MIN_BYTES } from '../../src/util/idle-collection.js';
import { eventually, startHubProcess, type HubProcess } from '../helpers/hub-process.js';

const MODEL = 'idle:8b';
const COLLECTED = 'collected the garbage a burst of requests left';
/** Each prompt's size: the burst's bodies add up to three times the garbage that starts a collection. */
const PROMPT_BYTES = 1024 * 1024;
const PROMPTS = (3 * IDLE_COLLECTION_MIN_BYTES) / PROMPT_BYTES;
const CONCURRENCY = 8;

interface CollectedLine {
  readonly msg: string;
  readonly before: { readonly heldBytes: number };
  readonly after: { readonly heldBytes: number };
  readonly inSpell: number;
}

function collections(hub: HubProcess): CollectedLine[] {
  return hub
    .log()
    .split('\n')
    .filter((line) => line.includes(COLLECTED))
    .map((line) => JSON.parse(line) as CollectedLine);
}

describe('idle collection in a running Hub', () => {
  let engine: SimEngine;
  let hub: HubProcess;

  before(async () => {
    engine = await startSimEngine({ dialect: 'vllm', models: [MODEL], timeScale: 0.0001 });
    // V8 collects on its own too, and the test must see what the Hub's collector does, so both are
    // pinned. V8's own growth rule: with serve's tighter one V8 may collect most of the burst before
    // the Hub goes quiet. No memory reducer: 8 s after its last full collection V8 collects an idle
    // heap itself, which raced the Hub's second quiet check (--trace-gc showed "Mark-Compact
    // (reduce)" freeing the burst 0.1 s before the check, in one run of five under load). An old
    // generation that starts at 256 MB: V8 does not reach its first full collection's limit
    // during the 48 MiB burst (CI under heavy load once saw no collection logged after it).
    hub = await startHubProcess({
      env: { VLLM_URL: engine.url, HUB_LOG_LEVEL: 'debug', HUB_HEAP_GROWING_PERCENT: '0' },
      nodeArgs: ['--no-memory-reducer', '--initial-old-space-size=256'],
    });
  });
  after(async () => {
    await hub.stop();
    await engine.close();
  });

  it('collects what a burst of large prompts left once the Hub is quiet, and says what it freed', async () => {
    assert.deepEqual(collections(hub), [], 'nothing to collect before the burst');

    let next = 0;
    const ask = async () => {
      while (next < PROMPTS) {
        const i = next++;
        const content = `${i} ${'a'.repeat(PROMPT_BYTES)}`;
        const res = await request(`${hub.pool}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content }] }),
        });
        await res.body.dump();
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, ask));

    const [first] = await eventually(() => {
      const found = collections(hub);
      return found.length > 0 ? found : null;
    }, 'the Hub to log a collection after the burst');
    assert.equal(first!.inSpell, 1);
    // The collection starts once the heap holds IDLE_COLLECTION_MIN_BYTES more than after the last
    // one, but part of that growth is live (routing-log rows, the throughput book, compiled code),
    // so what it frees can fall short of the trigger: 14.2 of 16 MiB in one run under load. Half
    // the trigger is still the burst's bodies, which no live state of the Hub comes near.
    assert.ok(
      first!.before.heldBytes - first!.after.heldBytes >= IDLE_COLLECTION_MIN_BYTES / 2,
      `the collection freed ${first!.before.heldBytes - first!.after.heldBytes} bytes`,
    );
  });
});
