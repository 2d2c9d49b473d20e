/**
 * The 2026-09-29 <unused49> node, met through a peer: A has no engine of its own for the model and
 * forwards to B, whose Ollama answers with nothing but placeholders. Both Hubs judge the same
 * bytes: A must withhold B's engine for the model (a peer candidate's key), and B, the leaf, its
 * own Ollama, so that B's own apps stop being sent to it too.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chat, header, TEST_TIMEOUT_MS, usePool } from '../helpers/pool-fixture.js';

const MODEL = 'gemma4:e4b';

type L = 'a' | 'b';

describe('the 2026-09-29 <unused49> engine behind a peer', () => {
  const pool = usePool<L>({
    hubs: { a: {}, b: { ollama: { models: [MODEL] } } },
    pairs: [['a', 'b']],
  });

  it("two placeholder answers through A withhold B's engine for the model on both Hubs", { timeout: TEST_TIMEOUT_MS }, async () => {
    const { a, b } = pool();
    await b.engines.ollama!.setFault({ mode: 'unused', model: MODEL, count: 2 });
    for (let i = 0; i < 2; i++) {
      const answer = await chat(a, MODEL);
      assert.equal(answer.status, 200, 'the only candidate relays what its engine gave');
      assert.equal(header(answer, 'x-hub-pool-served-by'), b.name);
      assert.match(answer.text, /<unused\d+>/);
    }
    const onA = (await a.status()).withheld.outputFaults.map((w) => [w.key, w.reason]);
    assert.deepEqual(onA, [[`${b.name}|*|${MODEL}`, 'degenerate-output']], 'A withholds the peer for the model');
    // A's one warning names the engine B's mark says gave the answers, which the key cannot.
    const warned = a
      .log()
      .split('\n')
      .filter((l) => l.includes('withholding'))
      .map((l) => JSON.parse(l) as { level: number; backend: string; fault: string; msg: string });
    assert.deepEqual(
      warned.map((w) => [w.level, w.backend, w.fault]),
      [[40, 'ollama', 'degenerate-output']],
    );
    assert.ok(warned[0]!.msg.startsWith(`withholding ${b.name}|*|${MODEL} (its ollama gave the answers)`), warned[0]!.msg);
    // B judged the body before it sent any of it, so its strike is in place by the time A has the answer.
    const onB = (await b.status()).withheld.outputFaults.map((w) => [w.key, w.reason]);
    assert.deepEqual(onB, [[`local|ollama|${MODEL}`, 'degenerate-output']], 'B withholds its own Ollama for the model');
  });
});
