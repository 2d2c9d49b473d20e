/**
 * What an open stream keeps alive (issue 13, item 2). Placement reads a copy of every generation
 * running on this node's engines (EngineWork.busy()); while the proxy's frame that placed a
 * request stayed suspended for the whole answer, each open stream held its own copy, so memory
 * grew with the square of the open streams (bench/soak/stream-cost: 51 KiB of heap per stream
 * at 1,000, 27 KiB once placement ran in a frame of its own). This runs a Hub in this process so
 * it can watch those copies with weak references: once placement is done, nothing may hold them.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Agent, request } from 'undici';
import { loadEnv } from '../../src/config/env.js';
import { EngineWork } from '../../src/proxy/engine-work.js';
import { startSimEngine, type SimEngine } from '../../src/sim/engine.js';
import { startHub, type HubSystem } from '../../src/system.js';
import { createLogger } from '../../src/util/logger.js';
import { eventually, freshDataDir } from '../helpers/hub-process.js';

const MODEL = 'qwen3:8b';
const STREAMS = 4;
const ENGINES_OFF = { VLLM_URL: '', LEMONADE_URL: '', OMLX_URL: '', LLAMACPP_URL: '' };

/** A full collection on demand, without starting the test process with --expose-gc. */
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

describe('a held stream', () => {
  let engine: SimEngine;
  let hub: HubSystem;
  const snapshots: WeakRef<object>[] = [];
  /** How many generations each copy listed, in the order placement asked. */
  const listed: number[] = [];
  const realBusy = Object.getOwnPropertyDescriptor(EngineWork.prototype, 'busy')!;

  before(async () => {
    // The thinnest seam there is: the real busy(), with each copy it hands out watched.
    Object.defineProperty(EngineWork.prototype, 'busy', {
      ...realBusy,
      value: function (this: EngineWork) {
        const copy = (realBusy.value as () => ReadonlyMap<string, readonly unknown[]>).call(this);
        snapshots.push(new WeakRef(copy));
        listed.push([...copy.values()].reduce((n, gens) => n + gens.length, 0));
        return copy;
      },
    });
    // One token a second and a long answer: every stream is still open when the heap is read.
    engine = await startSimEngine({ dialect: 'ollama', models: [MODEL], slots: STREAMS + 2, decodeTps: 1, answerTokens: 100_000, loadMs: 0, timeScale: 1 });
    const env = loadEnv({ ...ENGINES_OFF, OLLAMA_URL: engine.url }, { port: 0, host: '127.0.0.1', dataDir: freshDataDir() });
    hub = await startHub(env, { logger: createLogger('silent') });
  });
  after(async () => {
    Object.defineProperty(EngineWork.prototype, 'busy', realBusy);
    await hub?.close();
    await engine?.close();
  });

  it('holds no copy of the running generations once a stream is placed', async () => {
    const agent = new Agent();
    const aborts: AbortController[] = [];
    let streaming = 0;
    try {
      for (let i = 0; i < STREAMS; i++) {
        const ac = new AbortController();
        aborts.push(ac);
        const res = await request(`${hub.url}/api/inference/pool/v1/chat/completions`, {
          method: 'POST',
          dispatcher: agent,
          signal: ac.signal,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: `story ${i}` }], stream: true }),
        });
        assert.equal(res.statusCode, 200);
        res.body.once('data', () => streaming++);
        res.body.on('error', () => {});
      }
      await eventually(() => streaming === STREAMS, 'every stream to relay its first event');
      // Each later placement saw the earlier streams' generations: the copies are not empty.
      assert.ok(Math.max(...listed) >= STREAMS - 1, `placement read the running generations (copies listed ${listed.join(', ')})`);
      // A WeakRef's target survives until the current job ends, so collect across a turn.
      collect();
      await new Promise((resolve) => setImmediate(resolve));
      collect();
      assert.equal(snapshots.filter((s) => s.deref() !== undefined).length, 0, 'every copy placement read is collectable while the streams run');
    } finally {
      for (const ac of aborts) ac.abort();
      await agent.close();
    }
  });
});
