import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Agent } from 'undici';
import { REPO_ROOT } from '../../test/helpers/hub-process.js';
import { synDroppingPort, type SynDroppingPort } from '../../test/helpers/syn-dropping-port.js';
import { describeTransportError, getBytes } from './probe-fetch.js';

describe('describeTransportError', () => {
  const cases: [name: string, err: unknown, said: string][] = [
    ['a refused connection', Object.assign(new Error('x'), { code: 'ECONNREFUSED' }), 'fetch failed (ECONNREFUSED)'],
    ["undici's wrapper around a cause", Object.assign(new TypeError('fetch failed'), { cause: { code: 'ENOTFOUND' } }), 'fetch failed (ENOTFOUND)'],
    ['no code at all, by its own words', new Error('socket\n  hang'), 'fetch failed: socket hang'],
    ["undici's bare wrapper", new TypeError('fetch failed'), 'fetch failed'],
    ['a cause two levels down', Object.assign(new TypeError('fetch failed'), { cause: { cause: { code: 'ECONNREFUSED' } } }), 'fetch failed (ECONNREFUSED)'],
    [
      'connection attempts on several addresses',
      new AggregateError([new Error('a'), Object.assign(new Error('b'), { code: 'ECONNREFUSED' })], ''),
      'fetch failed (ECONNREFUSED)',
    ],
    ['an abort', Object.assign(new Error('x'), { name: 'AbortError' }), 'aborted'],
    ['a headers timeout', Object.assign(new Error('x'), { code: 'UND_ERR_HEADERS_TIMEOUT' }), 'timed out (UND_ERR_HEADERS_TIMEOUT)'],
    [
      'a CA nobody here trusts',
      Object.assign(new Error('x'), { code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' }),
      'TLS certificate not trusted (UNABLE_TO_VERIFY_LEAF_SIGNATURE)',
    ],
    ['an expired certificate', Object.assign(new Error('x'), { code: 'CERT_HAS_EXPIRED' }), 'TLS certificate not trusted (CERT_HAS_EXPIRED)'],
    [
      'a certificate for another name',
      Object.assign(new Error('x'), { code: 'ERR_TLS_CERT_ALTNAME_INVALID' }),
      'TLS certificate not trusted (ERR_TLS_CERT_ALTNAME_INVALID)',
    ],
    ['an invalid CA', Object.assign(new Error('x'), { code: 'INVALID_CA' }), 'TLS certificate not trusted (INVALID_CA)'],
    ['a reset, which only looks like TLS trouble', Object.assign(new Error('x'), { code: 'ECONNRESET' }), 'fetch failed (ECONNRESET)'],
  ];
  for (const [name, err, said] of cases) it(`words ${name} as "${said}"`, () => assert.equal(describeTransportError(err), said));

  it('words a call that ran out of its AbortSignal.timeout budget as no answer within that budget', async () => {
    const signal = AbortSignal.timeout(0);
    await once(signal, 'abort');
    assert.equal(describeTransportError(signal.reason, 5_000), 'no answer within 5 s');
    assert.equal(describeTransportError(Object.assign(new TypeError('fetch failed'), { cause: signal.reason }), 2_000), 'no answer within 2 s');
    assert.equal(describeTransportError(signal.reason), 'timed out', 'without a budget to name');
  });
});

describe('getBytes against a certificate this machine does not trust', () => {
  let server: Server;
  let url: string;
  before(async () => {
    const tls = join(REPO_ROOT, 'test/fixtures/tls');
    server = createServer({ cert: readFileSync(join(tls, 'self-signed-cert.pem')), key: readFileSync(join(tls, 'self-signed-key.pem')) }, (_req, res) =>
      res.end('{}'),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/api/tags`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('says the certificate was not trusted, with the handshake code', async () => {
    const agent = new Agent();
    try {
      const res = await getBytes(url, agent, AbortSignal.timeout(10_000), 1024);
      assert.deepEqual(res, { ok: false, running: false, error: 'TLS certificate not trusted (DEPTH_ZERO_SELF_SIGNED_CERT)' });
    } finally {
      await agent.close();
    }
  });

  it('reads the same server once its certificate is trusted', async () => {
    const agent = new Agent({ connect: { ca: readFileSync(join(REPO_ROOT, 'test/fixtures/tls/self-signed-cert.pem')) } });
    try {
      const res = await getBytes(url, agent, AbortSignal.timeout(10_000), 1024);
      assert.equal(res.ok, true, JSON.stringify(res));
    } finally {
      await agent.close();
    }
  });
});

describe('getBytes against a port that drops SYNs', () => {
  let dropping: SynDroppingPort;
  let url: string;
  before(async () => {
    dropping = await synDroppingPort();
    url = `http://127.0.0.1:${dropping.port}/api/tags`;
  });
  after(() => dropping.close());

  it('gives up within its own time budget, connection included, and says it timed out', async () => {
    const agent = new Agent();
    try {
      // The deadline's own words, not undici's connect timeout (UND_ERR_CONNECT_TIMEOUT after 10 s):
      // the budget ended the wait. How long that took is the benchmark's business, not a test's.
      const res = await getBytes(url, agent, new AbortController().signal, 1024, 300);
      assert.deepEqual(res, { ok: false, running: false, error: 'timed out (no connection and answer within 300 ms)' });
    } finally {
      await agent.destroy();
    }
  });
});
