import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bootProof } from '../auth/boot-proof.js';
import { BOOT_CHECK_TIMEOUT_MS, callHub, HubNotAnsweringError, HubNotRunningError, HubUnreachableError, verifyHub, type HubTarget } from './hub-client.js';
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
    const err = await verifyHub({ url, operatorKey: 'k', pid: process.pid, bootId: 'boot', bootProof: false, dataDir: '/nowhere', version: null }).then(
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
    return {
      target: { url, operatorKey: 'k', pid: process.pid, bootId, bootProof: false, dataDir: '/nowhere', version, warn: (line) => warned.push(line) },
      warned,
    };
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

describe('verifyHub when hub.json says its Hub proves the operator key', () => {
  let listener: Server;
  let url = '';
  /** What the listener answers at the boot route, given the challenge the CLI sent (null when none). */
  let answer: (challenge: string | null) => unknown = () => ({});
  const seen: { url: string; authorization: string | undefined }[] = [];
  before(async () => {
    listener = createServer((req, res) => {
      seen.push({ url: req.url ?? '', authorization: req.headers.authorization });
      const asked = new URL(req.url ?? '/', 'http://x');
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(asked.pathname === '/api/hub/boot' ? answer(asked.searchParams.get('challenge')) : {}));
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise<void>((resolve) => listener.close(() => resolve()));
  });

  const target = (): HubTarget => ({ url, operatorKey: 'cihub_op_k', pid: process.pid, bootId: 'boot', bootProof: true, dataDir: '/nowhere', version: null });

  it("sends the key once the listener answers this call's challenge with the proof the key gives", async () => {
    seen.length = 0;
    answer = (challenge) => ({ bootId: 'boot', proof: bootProof('cihub_op_k', 'boot', challenge ?? '') });
    await callHub(target(), 'GET', '/one');
    assert.equal(seen.length, 2);
    assert.match(seen[0]!.url, /^\/api\/hub\/boot\?challenge=[0-9a-f]{64}$/);
    assert.equal(seen[1]!.authorization, 'Bearer cihub_op_k');
  });

  const refused: [string, (challenge: string | null) => unknown][] = [
    ['the recorded boot id with no proof, as a listener that learnt it while the Hub ran would', () => ({ bootId: 'boot' })],
    ['a proof recorded for another challenge', () => ({ bootId: 'boot', proof: bootProof('cihub_op_k', 'boot', 'a'.repeat(64)) })],
    [
      'a proof made with another key (operator.key replaced since the Hub started)',
      (challenge) => ({ bootId: 'boot', proof: bootProof('cihub_op_other', 'boot', challenge ?? '') }),
    ],
  ];
  for (const [what, given] of refused) {
    it(`never sends the key to a listener that answers ${what}`, async () => {
      seen.length = 0;
      answer = given;
      const err = await callHub(target(), 'GET', '/one').then(
        () => null,
        (e: unknown) => e,
      );
      assert.ok(err instanceof HubUnreachableError, String(err));
      assert.match(
        err.message,
        /^The Hub at http:\/\/127\.0\.0\.1:\d+ did not prove it holds the operator key in \/nowhere\/operator\.key, so the key was not sent: /,
      );
      assert.deepEqual(
        seen.map((s) => s.authorization),
        [undefined],
        'one boot check, no credential',
      );
    });
  }
});
