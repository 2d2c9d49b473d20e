import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { relayHeaders, type Attribution } from './response-headers.js';

const local: Attribution = { servedBy: 'local', backend: 'ollama', model: 'qwen3:8b', requestId: 'req-1' };

describe('relayHeaders', () => {
  it("keeps the engine's ordinary headers", () => {
    const out = relayHeaders({ 'content-type': 'application/x-ndjson', 'x-request-id': 'abc', date: 'Mon, 30 Nov 2026 12:00:00 GMT' }, local);
    assert.equal(out['content-type'], 'application/x-ndjson');
    assert.equal(out['x-request-id'], 'abc');
    assert.equal(out.date, 'Mon, 30 Nov 2026 12:00:00 GMT');
  });

  const hopByHop = [
    'connection',
    'keep-alive',
    'proxy-connection',
    'transfer-encoding',
    'upgrade',
    'te',
    'trailer',
    'proxy-authenticate',
    'proxy-authorization',
  ];
  for (const name of hopByHop) {
    it(`drops the hop-by-hop header ${name}`, () => {
      const out = relayHeaders({ [name]: 'x', 'content-type': 'application/json' }, local);
      assert.equal(name in out, false);
      assert.equal(out['content-type'], 'application/json');
    });
  }

  it('drops headers the engine named in Connection, which are hop-by-hop too', () => {
    const out = relayHeaders({ connection: 'keep-alive, X-Engine-Hop', 'x-engine-hop': '1', 'content-type': 'application/json' }, local);
    assert.equal('x-engine-hop' in out, false);
    assert.equal(out['content-type'], 'application/json');
  });

  it('drops every x-hub-pool-* header an engine or peer sent, whatever its name', () => {
    const out = relayHeaders(
      {
        'x-hub-pool-served-by': 'core-9.tail.ts.net',
        'x-hub-pool-backend': 'vllm',
        'x-hub-pool-model': 'other',
        'x-hub-pool-request-id': 'theirs',
        'x-hub-pool-upstream-status': '500',
        'x-hub-pool-anything': 'y',
      },
      { ...local, backend: null },
    );
    assert.deepEqual(out, { 'x-hub-pool-served-by': 'local', 'x-hub-pool-model': 'qwen3:8b', 'x-hub-pool-request-id': 'req-1' });
  });

  it("states this Hub's attribution for a local engine", () => {
    const out = relayHeaders({}, local);
    assert.deepEqual(out, {
      'x-hub-pool-served-by': 'local',
      'x-hub-pool-backend': 'ollama',
      'x-hub-pool-model': 'qwen3:8b',
      'x-hub-pool-request-id': 'req-1',
    });
  });

  it('names the serving peer by its MagicDNS name', () => {
    const out = relayHeaders({}, { servedBy: 'core-14.tailxyz.ts.net', backend: 'omlx', model: 'm', requestId: 'r' });
    assert.equal(out['x-hub-pool-served-by'], 'core-14.tailxyz.ts.net');
    assert.equal(out['x-hub-pool-backend'], 'omlx');
  });

  it('leaves the backend header out when the serving peer did not say which engine it used', () => {
    const out = relayHeaders({ 'x-hub-pool-backend': 'ollama' }, { ...local, backend: null });
    assert.equal('x-hub-pool-backend' in out, false);
  });

  it('skips headers whose value is undefined', () => {
    const out = relayHeaders({ 'content-length': undefined }, local);
    assert.equal('content-length' in out, false);
  });

  it('keeps multi-valued headers whole', () => {
    const out = relayHeaders({ link: ['</a>; rel=preload', '</b>; rel=preload'] }, local);
    assert.deepEqual(out.link, ['</a>; rel=preload', '</b>; rel=preload']);
  });

  const originScoped = [
    'set-cookie',
    'set-cookie2',
    'alt-svc',
    'strict-transport-security',
    'clear-site-data',
    'public-key-pins',
    'www-authenticate',
    'timing-allow-origin',
  ];
  for (const name of [
    ...originScoped,
    'access-control-allow-origin',
    'access-control-allow-credentials',
    'access-control-allow-headers',
    'access-control-expose-headers',
    'access-control-max-age',
  ]) {
    it(`drops ${name}: it would speak for this Hub's origin in an app's browser`, () => {
      const out = relayHeaders({ [name]: name === 'set-cookie' ? ['session=engine; Path=/', 'b=2'] : '*', 'content-type': 'application/json' }, local);
      assert.equal(name in out, false);
      assert.equal(out['content-type'], 'application/json');
    });
  }
});
