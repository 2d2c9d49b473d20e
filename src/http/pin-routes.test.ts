import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { SettingsFile } from '../config/settings-file.js';
import type { RoutingPin } from '../config/settings-schema.js';
import { HubError } from '../errors.js';
import { toHubError } from './error-mapping.js';
import { parsePinQuery, parsePinRequest, registerPinRoutes } from './pin-routes.js';

const SELF = { nodeFqdn: 'hub-a.tail0.ts.net', tailnetSuffix: 'tail0.ts.net' };

describe('parsePinRequest', () => {
  const accepted: readonly { name: string; body: unknown; pin: RoutingPin }[] = [
    {
      name: 'a model pin at local',
      body: { scope: 'model', model: 'llama3.2:3b', target: 'local' },
      pin: { scope: 'model', model: 'llama3.2:3b', target: 'local' },
    },
    {
      name: 'a model id with / and : kept verbatim, case included',
      body: { scope: 'model', model: 'Org/Model-7B:Q4', target: 'core-1.tail0.ts.net' },
      pin: { scope: 'model', model: 'Org/Model-7B:Q4', target: 'core-1.tail0.ts.net' },
    },
    {
      name: 'a default pin without model',
      body: { scope: 'default', target: 'core-1.tail0.ts.net' },
      pin: { scope: 'default', model: null, target: 'core-1.tail0.ts.net' },
    },
    {
      name: 'a default pin with model null',
      body: { scope: 'default', model: null, target: 'local' },
      pin: { scope: 'default', model: null, target: 'local' },
    },
    {
      name: 'a peer name normalised: case, spaces and a trailing dot',
      body: { scope: 'default', target: ' Core-1.Tail0.TS.net. ' },
      pin: { scope: 'default', model: null, target: 'core-1.tail0.ts.net' },
    },
    { name: 'LOCAL in any case', body: { scope: 'default', target: 'LOCAL' }, pin: { scope: 'default', model: null, target: 'local' } },
    {
      name: 'a peer that is not paired is still accepted',
      body: { scope: 'default', target: 'not-paired.tail0.ts.net' },
      pin: { scope: 'default', model: null, target: 'not-paired.tail0.ts.net' },
    },
  ];
  for (const c of accepted) it(`accepts ${c.name}`, () => assert.deepEqual(parsePinRequest(c.body, SELF), c.pin));
  it('accepts any peer name while this Hub has no tailnet name or suffix', () =>
    assert.deepEqual(parsePinRequest({ scope: 'default', target: 'nas.lan' }, { nodeFqdn: null, tailnetSuffix: null }), {
      scope: 'default',
      model: null,
      target: 'nas.lan',
    }));

  const refused: readonly { name: string; body: unknown; message: RegExp }[] = [
    { name: 'a body that is not an object', body: [1], message: /the body must be a JSON object/ },
    { name: 'no scope', body: { target: 'local' }, message: /scope must be "model" or "default"; got nothing/ },
    { name: 'an unknown scope', body: { scope: 'require', target: 'local' }, message: /scope must be "model" or "default"; got "require"/ },
    { name: 'a model pin without model', body: { scope: 'model', target: 'local' }, message: /model must be the exact model id/ },
    { name: 'a model pin with an empty model', body: { scope: 'model', model: '', target: 'local' }, message: /model must be the exact model id/ },
    {
      name: 'a model with spaces around it',
      body: { scope: 'model', model: ' qwen3:8b', target: 'local' },
      message: /model must be the exact model id, without spaces/,
    },
    {
      name: 'a model with a control character',
      body: { scope: 'model', model: 'qwen\n3', target: 'local' },
      message: /model must not contain control characters/,
    },
    { name: 'a model too long', body: { scope: 'model', model: 'm'.repeat(257), target: 'local' }, message: /model must be at most 256 characters/ },
    {
      name: 'a default pin that names a model',
      body: { scope: 'default', model: 'qwen3:8b', target: 'local' },
      message: /model must be left out for the default pin/,
    },
    { name: 'no target', body: { scope: 'default' }, message: /target must be "local" or a peer's MagicDNS name; got nothing/ },
    { name: 'a URL as target', body: { scope: 'default', target: 'https://core-1.tail0.ts.net' }, message: /target must be .*has a scheme/ },
    { name: 'an IP as target', body: { scope: 'default', target: '100.64.0.1' }, message: /target must be .*IP literal/ },
    { name: 'a single-label target', body: { scope: 'default', target: 'core-1' }, message: /target must be .*single label/ },
    { name: 'an unknown field', body: { scope: 'default', target: 'local', mode: 'require' }, message: /mode is not a pin field/ },
    {
      name: "this Hub's own name as target (no peer can have it)",
      body: { scope: 'model', model: 'qwen3:8b', target: 'Hub-A.tail0.ts.net' },
      message: /target hub-a\.tail0\.ts\.net is this Hub's own name: pin this Hub as "local"/,
    },
    {
      name: 'a name outside the tailnet as target',
      body: { scope: 'default', target: 'evil.example.com' },
      message: /target evil\.example\.com is not a name on this Hub's tailnet \(tail0\.ts\.net\)/,
    },
  ];
  for (const c of refused) {
    it(`refuses ${c.name}, naming the field`, () =>
      assert.throws(
        () => parsePinRequest(c.body, SELF),
        (err: unknown) => err instanceof HubError && err.code === 'HUB_ERR_BAD_REQUEST' && c.message.test(err.message),
      ));
  }

  it('names every field at fault in one answer', () =>
    assert.throws(
      () => parsePinRequest({ scope: 'nope', target: 7 }, SELF),
      (err: unknown) => err instanceof HubError && /scope/.test(err.message) && /target/.test(err.message),
    ));
});

describe('parsePinQuery', () => {
  it('reads a model pin key', () => assert.deepEqual(parsePinQuery({ scope: 'model', model: 'org/m:7b' }), { scope: 'model', model: 'org/m:7b' }));
  it('reads the default pin key', () => assert.deepEqual(parsePinQuery({ scope: 'default' }), { scope: 'default', model: null }));
  const refused: readonly { name: string; query: unknown; message: RegExp }[] = [
    { name: 'no scope', query: {}, message: /scope must be given once/ },
    { name: 'scope given twice', query: { scope: ['model', 'model'], model: 'm' }, message: /scope must be given once/ },
    { name: 'scope model without model', query: { scope: 'model' }, message: /model must be the exact model id/ },
    { name: 'scope default with a model', query: { scope: 'default', model: 'm' }, message: /model must be left out with scope=default/ },
  ];
  for (const c of refused) {
    it(`refuses ${c.name}`, () =>
      assert.throws(
        () => parsePinQuery(c.query),
        (err: unknown) => err instanceof HubError && err.code === 'HUB_ERR_QUERY_INVALID' && c.message.test(err.message),
      ));
  }
});

describe('pin routes', () => {
  let dir: string;
  let settings: SettingsFile;
  let app: FastifyInstance;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cihub-pins-'));
    settings = new SettingsFile(dir);
    app = Fastify({ logger: false });
    app.setErrorHandler((err, _request, reply) => {
      const e = toHubError(err);
      void reply.code(e.status).send(e.toBody());
    });
    registerPinRoutes(app, {
      settings,
      logger: pino({ level: 'silent' }),
      peers: { self: async () => ({ ...SELF, tailscaleConnected: true, source: 'env' as const }) },
    });
    await app.ready();
  });
  after(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const post = (payload: unknown) => app.inject({ method: 'POST', url: '/api/inference/pool/pins', payload: payload as object });

  it('upserts by (scope, model), answers the pin list and writes settings.json', async () => {
    assert.equal((await post({ scope: 'model', model: 'org/m:7b', target: 'core-1.tail0.ts.net' })).statusCode, 200);
    assert.equal((await post({ scope: 'default', target: 'local' })).statusCode, 200);
    const res = await post({ scope: 'model', model: 'org/m:7b', target: 'local' });
    assert.equal(res.statusCode, 200);
    const expected = [
      { scope: 'default', model: null, target: 'local' },
      { scope: 'model', model: 'org/m:7b', target: 'local' },
    ];
    assert.deepEqual(res.json().pins, expected);
    assert.deepEqual(JSON.parse(readFileSync(join(dir, 'settings.json'), 'utf8')).poolPins, expected);
    assert.deepEqual((await app.inject({ method: 'GET', url: '/api/inference/pool/pins' })).json().pins, expected);
  });

  it('answers 400 with the field named for a bad body, and changes nothing', async () => {
    const before = settings.get().poolPins;
    const res = await post({ scope: 'model', target: 'local' });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().error.code, 'HUB_ERR_BAD_REQUEST');
    assert.match(res.json().error.message, /model/);
    assert.equal(settings.get().poolPins, before);
  });

  it('removes a model pin addressed by query, its id URL-encoded', async () => {
    const res = await app.inject({ method: 'DELETE', url: `/api/inference/pool/pins?scope=model&model=${encodeURIComponent('org/m:7b')}` });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json().pins, [{ scope: 'default', model: null, target: 'local' }]);
  });

  it('answers 404 when there is no such pin', async () => {
    const res = await app.inject({ method: 'DELETE', url: '/api/inference/pool/pins?scope=model&model=org%2Fm%3A7b' });
    assert.equal(res.statusCode, 404);
    assert.match(res.json().error.message, /no pin for model "org\/m:7b"/);
  });

  it('removes the default pin, then 404s on a second try', async () => {
    assert.equal((await app.inject({ method: 'DELETE', url: '/api/inference/pool/pins?scope=default' })).statusCode, 200);
    assert.deepEqual(settings.get().poolPins, []);
    const again = await app.inject({ method: 'DELETE', url: '/api/inference/pool/pins?scope=default' });
    assert.equal(again.statusCode, 404);
    assert.match(again.json().error.message, /no default pin/);
  });

  it('answers 400 for a DELETE without a scope', async () => {
    const res = await app.inject({ method: 'DELETE', url: '/api/inference/pool/pins' });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().error.code, 'HUB_ERR_QUERY_INVALID');
  });
});
