/**
 * Issue 9, #10: names an app or a peer chose reach the operator's terminal through `cihub pool
 * log` and `cihub pool status`. Run against real Hubs, with a peer whose engine lists models
 * named to clear the screen, retitle the window and write the clipboard, and an app that asks
 * for such a model. A name with a control character in it is no model's, so the peer's are not
 * read at all (engines/model-name.ts) and never reach the terminal; the app's, logged as asked,
 * is shown with its control characters escaped, and --json still reads back as the same string.
 * A name with a newline in it is escaped too, or it would print a row of its own that the Hub
 * never logged.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../helpers/hub-process.js';
import { chat, TEST_TIMEOUT_MS, usePool } from '../helpers/pool-fixture.js';

/** Screen clear, window title (OSC 0, BEL), clipboard (OSC 52), 8-bit CSI, and a right-to-left override. */
const HOSTILE_PEER_MODEL = 'peer\u001b[2J\u001b]0;pwned\u0007\u009b31m\u202ecod:7b';
const HOSTILE_APP_MODEL = 'app\u001b]52;c;ZXZpbA==\u0007\u001b[1A:1b';
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
/** A model name that, printed raw, reads as a served row of its own in `pool log` and a node's line in `pool status`. */
const FORGED_LINE = '2026-12-05 09:06:58Z out  llama3.1:70b  core-2.tail0.ts.net 1/3 412 ✓ served';
const FORGING_MODEL = `qwen3:8b\n${FORGED_LINE}\n`;
const FORGING_PEER_MODEL = `peer-forge:1b\n${FORGED_LINE}`;

describe('CLI output with hostile names', () => {
  const pool = usePool<'a' | 'b'>({
    hubs: { a: { ollama: { models: ['plain:1b'] } }, b: { ollama: { models: ['peer-clean:1b', HOSTILE_PEER_MODEL, FORGING_PEER_MODEL] } } },
    pairs: [['a', 'b']],
    settings: { poolHealthPollSeconds: 300 },
  });

  it('shows no peer-supplied model name with control characters in `pool status`, raw or escaped', { timeout: TEST_TIMEOUT_MS }, async () => {
    const run = await runCli(['pool', 'status'], { dataDir: pool().a.dataDir });
    assert.equal(run.code, 0, run.stderr);
    assert.doesNotMatch(run.stdout, RAW_CONTROL);
    assert.ok(run.stdout.includes('peer-clean:1b'), run.stdout);
    assert.ok(!run.stdout.includes('pwned') && !run.stdout.includes('peer-forge'), run.stdout);
  });

  it('escapes an app-supplied model name in `pool log`, and --json reads back as the same string', { timeout: TEST_TIMEOUT_MS }, async () => {
    await chat(pool().a, HOSTILE_APP_MODEL);
    const run = await runCli(['pool', 'log'], { dataDir: pool().a.dataDir });
    assert.equal(run.code, 0, run.stderr);
    assert.doesNotMatch(run.stdout, RAW_CONTROL);
    assert.ok(run.stdout.includes('app\\u001b]52;c;ZXZpbA==\\u0007\\u001b[1A:1b'), run.stdout);

    const json = await runCli(['pool', 'log', '--json'], { dataDir: pool().a.dataDir });
    assert.equal(json.code, 0, json.stderr);
    assert.doesNotMatch(json.stdout, RAW_CONTROL);
    const page = JSON.parse(json.stdout) as { entries: { requestedModel?: string; model?: string }[] };
    assert.ok(JSON.stringify(page).includes(JSON.stringify(HOSTILE_APP_MODEL).slice(1, -1)), 'the JSON carries the exact string the app sent');
  });

  it('keeps a model name with newlines in it on its own row of `pool log`', { timeout: TEST_TIMEOUT_MS }, async () => {
    await chat(pool().a, FORGING_MODEL);
    const run = await runCli(['pool', 'log'], { dataDir: pool().a.dataDir });
    assert.equal(run.code, 0, run.stderr);
    assert.ok(!run.stdout.split('\n').some((line) => line.startsWith(FORGED_LINE)), run.stdout);
    assert.ok(run.stdout.includes(`qwen3:8b\\n${FORGED_LINE}\\n`), run.stdout);
  });

  it('keeps a peer-supplied model name with a newline on its own line of `pool status`', { timeout: TEST_TIMEOUT_MS }, async () => {
    const run = await runCli(['pool', 'status'], { dataDir: pool().a.dataDir });
    assert.equal(run.code, 0, run.stderr);
    assert.ok(!run.stdout.split('\n').some((line) => line.startsWith(FORGED_LINE)), run.stdout);
  });
});
