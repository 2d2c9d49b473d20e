/**
 * A handout above the entry node's own context cap (spec, "Context caps", handing an app its
 * window): it is no reload on this node, because placement keeps windows over the cap on nodes
 * that can take them, and the log says so, so an operator who capped this node and then sees a
 * larger window handed out is not left thinking the cap was ignored. Nothing asserted the line.
 *
 * hub-a is capped at 16384 and serves M and A_ONLY; hub-b, capped at 65536, serves M; hub-c,
 * uncapped, serves C_ONLY. The Hubs poll every 300 s, so every handout reads the snapshot pairing
 * left.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/hub-process.js';
import { POOL_API, TEST_TIMEOUT_MS, usePool } from '../helpers/pool-fixture.js';

const M = 'qwen3-coder:30b';
const A_ONLY = 'a-only:8b';
const C_ONLY = 'c-only:8b';
const LINE = "handing out a window above this node's context cap";

describe("handouts above the entry node's own context cap", () => {
  const pool = usePool<'a' | 'b' | 'c'>({
    hubs: {
      a: { ollama: { models: [M, A_ONLY] }, settings: { inferenceMaxNumCtx: 16_384 } },
      b: { ollama: { models: [M] }, settings: { inferenceMaxNumCtx: 65_536 } },
      c: { ollama: { models: [C_ONLY] } },
    },
    pairs: [
      ['a', 'b'],
      ['a', 'c'],
    ],
    settings: { poolHealthPollSeconds: 300 },
  });

  const handout = async (model: string) => {
    const res = await pool().a.api<{ numCtx: number | null }>('GET', `${POOL_API}/handout?model=${encodeURIComponent(model)}`);
    assert.equal(res.status, 200, JSON.stringify(res.json));
    return res.json.numCtx;
  };
  /** The log's lines about handouts above the cap, parsed, once there are `count` of them. */
  const aboveCapLines = (count: number) =>
    eventually(() => {
      const lines = pool()
        .a.log()
        .split('\n')
        .filter((l) => l.includes(LINE))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      return lines.length >= count ? lines : null;
    }, `hub-a to log ${count} handout(s) above its cap`);

  it('logs nothing for a handout within the cap, and says where a larger one is served', { timeout: TEST_TIMEOUT_MS }, async () => {
    assert.equal(await handout(A_ONLY), 16_384, 'only hub-a serves it: its own cap');
    assert.equal(await handout(M), 65_536, 'the largest cap among the nodes serving it');
    // The within-cap handout came first, so had it logged, its line would be here before this one.
    const lines = await aboveCapLines(1);
    assert.equal(lines.length, 1, JSON.stringify(lines));
    assert.deepEqual({ model: lines[0]!.model, handout: lines[0]!.handout, localCap: lines[0]!.localCap }, { model: M, handout: 65_536, localCap: 16_384 });
    assert.match(
      String(lines[0]!.msg),
      /\(16384\): the pool places those requests on nodes whose cap can take it, and this node's engine serves them only on failover$/,
    );
  });

  it('logs it too when no cap is handed because an uncapped node serves the model', { timeout: TEST_TIMEOUT_MS }, async () => {
    assert.equal(await handout(C_ONLY), null);
    const lines = await aboveCapLines(2);
    assert.deepEqual({ model: lines[1]!.model, handout: lines[1]!.handout, localCap: lines[1]!.localCap }, { model: C_ONLY, handout: null, localCap: 16_384 });
  });
});
