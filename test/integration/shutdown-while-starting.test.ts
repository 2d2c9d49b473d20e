/**
 * A SIGTERM or SIGINT that reaches a Hub while it is still starting: a supervisor stopping it at
 * once, or a script that sends SIGTERM as soon as hub.json appears (hub.json is in place while
 * the start is still syncing its directory). The Hub finishes starting, then stops as it would
 * for any signal: exit 0, hub.json removed, "hub stopped" logged.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CIHUB_BIN, eventually, freshDataDir, logMessages, pathWithoutTailscale } from '../helpers/hub-process.js';

/** A value the Hub warns about first thing in its start, before it opens its store or listens. */
const EARLY_WARNING_ENV = { HUB_POOL_ROUTING_LOG_SIZE: 'big' };

describe('a signal while the Hub is starting', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal}: the Hub finishes starting, then stops cleanly with exit 0 and removes hub.json`, async () => {
      const dataDir = freshDataDir();
      const child = spawn(process.execPath, [CIHUB_BIN, 'serve', '--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir], {
        env: {
          PATH: pathWithoutTailscale(),
          HOME: dataDir,
          OLLAMA_URL: '',
          VLLM_URL: '',
          LEMONADE_URL: '',
          OMLX_URL: '',
          LLAMACPP_URL: '',
          ...EARLY_WARNING_ENV,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      let signalled = false;
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.stderr.on('data', (d: Buffer) => (output += d.toString()));
      child.stdout.on('data', (d: Buffer) => {
        output += d.toString();
        // Sent as the Hub's first warning arrives: it has begun starting and has not listened yet.
        if (!signalled && output.includes('HUB_POOL_ROUTING_LOG_SIZE=big')) {
          signalled = true;
          child.kill(signal);
        }
      });
      try {
        await eventually(() => signalled, 'the early warning');
        assert.equal(await exited, 0, output);
      } finally {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }
      const msgs = logMessages(output);
      assert.ok(msgs.includes('hub listening'), 'it finished starting');
      assert.ok(msgs.indexOf('hub stopped') > msgs.indexOf('hub listening'), output);
      assert.equal(existsSync(join(dataDir, 'hub.json')), false, 'hub.json is removed on the way out');
    });
  }
});
