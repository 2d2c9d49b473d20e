import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from './undici-lean.js';
import { UpstreamReadError } from './bounded-read.js';
import { describeCallFailure } from './call-failure.js';

/** What a real undici request threw, or null when it answered. */
async function thrownBy(url: string, opts: Parameters<typeof request>[1]): Promise<unknown> {
  try {
    const res = await request(url, opts);
    await res.body.text();
    return null;
  } catch (err) {
    return err;
  }
}

describe('describeCallFailure', () => {
  // A listener that takes the request and never answers: a blackholed egress, a stuck proxy.
  let silent: Server;
  const held: ServerResponse[] = [];
  let silentUrl: string;
  before(async () => {
    silent = createServer((_req, res) => void held.push(res));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/`;
  });
  after(async () => {
    for (const res of held) res.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  });

  it('says an AbortSignal timeout as no answer within the budget, never as its legacy code 23', async () => {
    const err = await thrownBy(silentUrl, { signal: AbortSignal.timeout(50) });
    assert.equal((err as { code?: unknown }).code, 23, 'the DOMException this is about');
    assert.equal(describeCallFailure(err, 10_000), 'no answer within 10 s');
  });

  it("says undici's own headers timeout the same way", async () => {
    const err = await thrownBy(silentUrl, { headersTimeout: 50 });
    assert.equal((err as { code?: unknown }).code, 'UND_ERR_HEADERS_TIMEOUT');
    assert.equal(describeCallFailure(err, 2_500), 'no answer within 2.5 s');
  });

  it('says a body that took too long the same way', () => {
    assert.equal(describeCallFailure(new UpstreamReadError('timed-out', 'the answer took longer than 3000 ms to arrive'), 3_000), 'no answer within 3 s');
  });

  it('keeps a string code, such as a refused connection', async () => {
    const err = await thrownBy('http://127.0.0.1:9/', {});
    assert.equal(describeCallFailure(err, 10_000), 'ECONNREFUSED');
  });

  it('uses the message when the code is not a string', () => {
    assert.equal(describeCallFailure(Object.assign(new Error('socket hang up'), { code: 23 }), 10_000), 'socket hang up');
    assert.equal(
      describeCallFailure(new UpstreamReadError('too-large', 'the answer is larger than the 65536-byte limit'), 10_000),
      'the answer is larger than the 65536-byte limit',
    );
    assert.equal(describeCallFailure({}, 10_000), 'no answer');
  });
});
