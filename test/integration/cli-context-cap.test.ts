/**
 * What `cihub pool context-cap N|clear` tells the operator (spec, "Context caps"): set, that
 * larger windows go to nodes that can take them first; cleared, that the pool reads the node as
 * taking any window, which is the reading that collects the largest windows. Only the exit code
 * was checked before.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../helpers/hub-process.js';
import { TEST_TIMEOUT_MS, usePool } from '../helpers/pool-fixture.js';

describe('cihub pool context-cap', () => {
  const pool = usePool<'a'>({ hubs: { a: { ollama: { models: ['m:1b'] } } }, pairs: [] });
  const cap = (value: string) => runCli(['pool', 'context-cap', value, '--yes'], { dataDir: pool().a.dataDir });

  it('set: larger windows go to nodes that can take them first, and status reads the cap', { timeout: TEST_TIMEOUT_MS }, async () => {
    const set = await cap('16384');
    assert.equal(set.code, 0, set.stderr);
    assert.equal(
      set.stdout,
      "This node's context cap is num_ctx 16384: requests for a larger window go to nodes that can take it first, and handouts for models only this node serves are capped at it.\n",
    );
    assert.equal((await pool().a.status()).localNode.maxNumCtx, 16_384);
  });

  it('clear: the pool reads the node as taking any window', { timeout: TEST_TIMEOUT_MS }, async () => {
    const cleared = await cap('clear');
    assert.equal(cleared.code, 0, cleared.stderr);
    assert.equal(cleared.stdout, 'This node has no context cap: the pool reads it as taking any window.\n');
    assert.equal((await pool().a.status()).localNode.maxNumCtx, null);
  });
});
