import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BOOT_CHECK_TIMEOUT_MS, callHub, HubNotAnsweringError, HubNotRunningError, verifyHub, type HubTarget } from './hub-client.js';
import { CIHUB_VERSION } from './version.js';

describe('verifyHub against a listener that takes the request and never answers', () => {
  let silent: Server;
  const held: ServerResponse[] = [];
  let url = '';
  before(async () => {
    silent = createServer((_req, res) => void held.push(res));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  });
  after(async () => {
    for (const res of held) res.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  });

  it(`says the recorded process runs but gave no answer within ${BOOT_CHECK_TIMEOUT_MS / 1000} s, not the timeout's numeric code`, async () => {
    const err = await verifyHub({ url, operatorKey: 'k', pid: process.pid, bootId: 'boot', dataDir: '/nowhere', version: null }).then(
      () => null,
      (e: unknown) => e,
    );
    assert.ok(err instanceof HubNotAnsweringError, String(err));
    assert.ok(err instanceof HubNotRunningError, 'still exit code 3: nothing here answers');
    assert.equal(
      err.message,
      `The Hub for the data dir /nowhere is still running (pid ${process.pid}) but did not answer at ${url} (no answer within 5 s). If it was suspended (Ctrl-Z, SIGSTOP), resume it (fg, or kill -CONT ${process.pid}); otherwise stop it (kill ${process.pid}, or kill -9 ${process.pid} if it does not exit) and start it again with \`cihub serve --data-dir /nowhere\`.`,
    );
  });
});

describe('the version warning, once the Hub is verified', () => {
  let hub: Server;
  let url = '';
  const paths: string[] = [];
  before(async () => {
    hub = createServer((req, res) => {
      paths.push(req.url ?? '');
      res.setHeader('content-type', 'application/json');
      res.end(req.url === '/api/hub/boot' ? JSON.stringify({ bootId: 'boot' }) : '{}');
    });
    await new Promise<void>((resolve) => hub.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(hub.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise<void>((resolve) => hub.close(() => resolve()));
  });

  /** A command's HubTarget as findHub makes it, with the warning caught rather than written. */
  function target(version: string | null, bootId = 'boot'): { target: HubTarget; warned: string[] } {
    const warned: string[] = [];
    return { target: { url, operatorKey: 'k', pid: process.pid, bootId, dataDir: '/nowhere', version, warn: (line) => warned.push(line) }, warned };
  }

  it('is one line for the whole command, however many calls it makes, when hub.json records another version', async () => {
    const { target: t, warned } = target('0.0.1');
    await callHub(t, 'GET', '/one');
    await callHub(t, 'GET', '/two');
    assert.deepEqual(warned, [
      `Warning: this cihub is ${CIHUB_VERSION} but the running Hub is 0.0.1; restart the Hub with \`cihub serve\` (or its service manager) so the two agree. Until then, commands can fail or show less.\n`,
    ]);
  });

  it('names the Hub as older when its hub.json records no version', async () => {
    const { target: t, warned } = target(null);
    await callHub(t, 'GET', '/one');
    assert.equal(warned.length, 1);
    assert.match(warned[0]!, /the running Hub is an older version \(its hub\.json records none\)/);
  });

  it('says nothing when the Hub runs this version', async () => {
    const { target: t, warned } = target(CIHUB_VERSION);
    await callHub(t, 'GET', '/one');
    assert.deepEqual(warned, []);
  });

  it('says nothing about a listener that failed the check: its version is not the recorded one', async () => {
    const { target: t, warned } = target('0.0.1', 'another-boot');
    await assert.rejects(callHub(t, 'GET', '/one'), HubNotRunningError);
    assert.deepEqual(warned, []);
  });
});
