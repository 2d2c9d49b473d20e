/**
 * What `cihub pool ceiling N|clear` tells the operator (spec, "Prompt ceilings", and "Required
 * configuration": HUB_POOL_MAX_PROMPT_TOKENS overrides the setting). Set, it says that larger
 * prompts go elsewhere first and still run here as a last resort; cleared, that the node takes
 * any size; and under the environment variable, that the setting was saved but the variable still
 * decides. Only the exit code was checked before, so none of the three sentences was.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../helpers/hub-process.js';
import { TEST_TIMEOUT_MS, usePool } from '../helpers/pool-fixture.js';

describe('cihub pool ceiling', () => {
  const pool = usePool<'a' | 'e'>({
    hubs: { a: { ollama: { models: ['m:1b'] } }, e: { ollama: { models: ['m:1b'] }, env: { HUB_POOL_MAX_PROMPT_TOKENS: '4096' } } },
    pairs: [],
  });
  const ceiling = (hub: 'a' | 'e', value: string) => runCli(['pool', 'ceiling', value, '--yes'], { dataDir: pool()[hub].dataDir });

  it('set: prompts over it go to other nodes first, and this node still serves them when nothing else can', { timeout: TEST_TIMEOUT_MS }, async () => {
    const set = await ceiling('a', '16000');
    assert.equal(set.code, 0, set.stderr);
    assert.equal(
      set.stdout,
      'The poolMaxPromptTokens setting is 16000. Prompts estimated above 16000 tokens go to other nodes first; this node still serves them when nothing else can.\n',
    );
    const { localNode } = await pool().a.status();
    assert.deepEqual([localNode.maxPromptTokens, localNode.maxPromptTokensSetBy], [16_000, 'setting']);
  });

  it('clear: the node takes prompts of any size again', { timeout: TEST_TIMEOUT_MS }, async () => {
    const cleared = await ceiling('a', 'clear');
    assert.equal(cleared.code, 0, cleared.stderr);
    assert.equal(cleared.stdout, 'The poolMaxPromptTokens setting is cleared. This node has no prompt ceiling: it takes prompts of any size.\n');
    assert.equal((await pool().a.status()).localNode.maxPromptTokensSetBy, null);
  });

  it('under HUB_POOL_MAX_PROMPT_TOKENS: the setting is saved, and the output says the variable still decides', { timeout: TEST_TIMEOUT_MS }, async () => {
    const set = await ceiling('e', '16000');
    assert.equal(set.code, 0, set.stderr);
    assert.equal(
      set.stdout,
      "The poolMaxPromptTokens setting is 16000. HUB_POOL_MAX_PROMPT_TOKENS=4096 in this Hub's environment still decides the ceiling in force.\n",
    );
    const status = await pool().e.status();
    assert.deepEqual([status.localNode.maxPromptTokens, status.localNode.maxPromptTokensSetBy, status.settings.poolMaxPromptTokens], [4096, 'env', 16_000]);
  });
});
