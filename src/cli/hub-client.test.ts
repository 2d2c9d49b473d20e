import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BOOT_CHECK_TIMEOUT_MS, HubNotRunningError, verifyHub } from './hub-client.js';

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

  it(`says it got no answer within ${BOOT_CHECK_TIMEOUT_MS / 1000} s, not the timeout's numeric code`, async () => {
    const err = await verifyHub({ url, operatorKey: 'k', pid: process.pid, bootId: 'boot', dataDir: '/nowhere' }).then(
      () => null,
      (e: unknown) => e,
    );
    assert.ok(err instanceof HubNotRunningError, String(err));
    assert.equal(err.message, `The Hub is not running, or not answering, at ${url} (no answer within 5 s). Start it with \`cihub serve\`.`);
  });
});
