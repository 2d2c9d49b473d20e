/**
 * Issue 9, #10: names an app or a peer chose reach the operator's terminal through `cihub pool
 * log` and `cihub pool status`. Run against real Hubs, with a peer whose engine lists a model
 * named to clear the screen, retitle the window and write the clipboard, and an app that asks
 * for such a model: the CLI shows each name with its control characters escaped, and --json
 * still reads back as the same strings.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../helpers/hub-process.js';
import { chat, START_TIMEOUT_MS, startPool, TEST_TIMEOUT_MS, type Pool } from '../helpers/pool-fixture.js';

/** Screen clear, window title (OSC 0, BEL), clipboard (OSC 52), 8-bit CSI, and a right-to-left override. */
const HOSTILE_PEER_MODEL = 'peer\u001b[2J\u001b]0;pwned\u0007\u009b31m\u202ecod:7b';
const HOSTILE_APP_MODEL = 'app\u001b]52;c;ZXZpbA==\u0007\u001b[1A:1b';
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('CLI output with hostile names', () => {
  let pool: Pool<'a' | 'b'>;
  before(
    async () => {
      pool = await startPool<'a' | 'b'>({
        hubs: { a: { ollama: { models: ['plain:1b'] } }, b: { ollama: { models: [HOSTILE_PEER_MODEL] } } },
        pairs: [['a', 'b']],
        settings: { poolHealthPollSeconds: 300 },
      });
    },
    { timeout: START_TIMEOUT_MS },
  );
  after(
    async () => {
      await pool?.stop();
    },
    { timeout: START_TIMEOUT_MS },
  );

  it('escapes a peer-supplied model name in `pool status`', { timeout: TEST_TIMEOUT_MS }, async () => {
    const run = await runCli(['pool', 'status'], { dataDir: pool.a.dataDir });
    assert.equal(run.code, 0, run.stderr);
    assert.doesNotMatch(run.stdout, RAW_CONTROL);
    assert.ok(run.stdout.includes('peer\\u001b[2J\\u001b]0;pwned\\u0007\\u009b31m\\u202ecod:7b'), run.stdout);
  });

  it('escapes an app-supplied model name in `pool log`, and --json reads back as the same string', { timeout: TEST_TIMEOUT_MS }, async () => {
    await chat(pool.a, HOSTILE_APP_MODEL);
    const run = await runCli(['pool', 'log'], { dataDir: pool.a.dataDir });
    assert.equal(run.code, 0, run.stderr);
    assert.doesNotMatch(run.stdout, RAW_CONTROL);
    assert.ok(run.stdout.includes('app\\u001b]52;c;ZXZpbA==\\u0007\\u001b[1A:1b'), run.stdout);

    const json = await runCli(['pool', 'log', '--json'], { dataDir: pool.a.dataDir });
    assert.equal(json.code, 0, json.stderr);
    assert.doesNotMatch(json.stdout, RAW_CONTROL);
    const page = JSON.parse(json.stdout) as { entries: { requestedModel?: string; model?: string }[] };
    assert.ok(JSON.stringify(page).includes(JSON.stringify(HOSTILE_APP_MODEL).slice(1, -1)), 'the JSON carries the exact string the app sent');
  });
});
