/**
 * The OpenAPI document (issue 12, item 10) cannot drift from the routes: it is served at
 * /api/inference/pool/openapi.json from the routes Fastify registered, every registered route
 * has words in the route catalogue and every catalogue entry is a registered route, and every
 * operation in the document is one Fastify answers.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { loadEnv } from '../../src/config/env.js';
import { startHub, type HubSystem } from '../../src/system.js';
import { createLogger } from '../../src/util/logger.js';
import { ROUTE_CATALOGUE } from '../../src/http/openapi/route-catalogue.js';
import { describedRoutes, openApiPath, routeKey } from '../../src/http/openapi/openapi-document.js';
import { freshDataDir } from '../helpers/hub-process.js';
import { sessionCookieName } from '../../src/dashboard/cookies.js';
import { NOT_PATCHABLE, SETTING_RULES } from '../../src/config/settings-schema.js';

const ENGINES_OFF = { OLLAMA_URL: '', VLLM_URL: '', LEMONADE_URL: '', OMLX_URL: '' };
type Schema = { properties: Record<string, { type: string | string[]; minimum?: number; maximum?: number }> };
type Operation = {
  summary: string;
  security: Record<string, string[]>[];
  tags: string[];
  requestBody?: { content: { 'application/json': { schema: Schema } } };
};
type Doc = {
  openapi: string;
  info: { version: string };
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, { description?: string; name?: string }> };
};

describe('the OpenAPI document', () => {
  let hub: HubSystem;
  let doc: Doc;
  let operatorKey = '';

  before(async () => {
    const dataDir = freshDataDir();
    hub = await startHub(loadEnv(ENGINES_OFF, { port: 0, host: '127.0.0.1', dataDir }), { logger: createLogger('silent') });
    operatorKey = readFileSync(join(dataDir, 'operator.key'), 'utf8').trim();
    // Unauthenticated: it describes routes, it holds nothing.
    const res = await request(`${hub.url}/api/inference/pool/openapi.json`);
    assert.equal(res.statusCode, 200);
    doc = (await res.body.json()) as Doc;
  });
  after(async () => {
    await hub?.close();
  });

  it('is OpenAPI 3.1, versioned by the pool protocol and not the build it came from', () => {
    assert.equal(doc.openapi, '3.1.0');
    assert.equal(doc.info.version, 'pool protocol 2');
  });

  it('describes every registered route, with words from the catalogue', () => {
    const routes = describedRoutes(hub.app.registeredRoutes);
    assert.ok(routes.length > 50, `only ${routes.length} routes recorded`);
    for (const r of routes) {
      const { path } = openApiPath(r.url, ROUTE_CATALOGUE[routeKey(r)]?.wildcard);
      const method = r.method === 'ALL' ? 'post' : r.method.toLowerCase();
      const op = doc.paths[path]?.[method];
      assert.ok(op, `${routeKey(r)} is missing from the document`);
      assert.equal(op.summary, ROUTE_CATALOGUE[routeKey(r)]?.summary, `${routeKey(r)} has no catalogue entry`);
    }
  });

  it('has no catalogue entry for a route that is not registered', () => {
    const registered = new Set(describedRoutes(hub.app.registeredRoutes).map(routeKey));
    assert.deepEqual(
      Object.keys(ROUTE_CATALOGUE).filter((k) => !registered.has(k)),
      [],
    );
  });

  it('lists only operations Fastify answers', () => {
    const wildcards = new Set(Object.values(ROUTE_CATALOGUE).flatMap((d) => (d.wildcard === undefined ? [] : [d.wildcard])));
    for (const [path, item] of Object.entries(doc.paths)) {
      const url = path.replace(/\{([A-Za-z0-9_]+)\}$/, (m, name: string) => (wildcards.has(name) ? '*' : m)).replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');
      for (const method of Object.keys(item))
        assert.ok(hub.app.hasRoute({ method: method.toUpperCase() as 'GET', url }), `${method.toUpperCase()} ${url} is in the document but not a route`);
    }
  });

  it("states each route's access as the route declares it", () => {
    const sec = (path: string, method: string) => doc.paths[path]?.[method]?.security;
    assert.deepEqual(sec('/api/inference/pool/settings', 'patch'), [{ operatorKey: [] }]);
    assert.deepEqual(sec('/api/inference/pool/routing-log', 'get'), [{ operatorKey: [] }, { qaReadKey: [] }]);
    assert.deepEqual(sec('/metrics', 'get'), [{ operatorKey: [] }, { qaReadKey: [] }]);
    assert.match(String(doc.components.securitySchemes.operatorKey?.description), /x-cihub-csrf header/, 'names the CSRF header the dashboard sends');
    assert.deepEqual(sec('/api/inference/pool/handout', 'get'), [{ operatorKey: [] }]);
    assert.deepEqual(sec('/api/inference/pool/v1/chat/completions', 'post'), [{}, { inferenceKey: [] }]);
    assert.deepEqual(sec('/api/inference/pool/local/api/chat', 'post'), [{ peerCredential: [] }]);
    assert.deepEqual(sec('/healthz', 'get'), []);
    assert.deepEqual(sec('/api/hub/api-keys/{id}', 'delete'), [{ operatorKey: [] }]);
  });

  it("names the dashboard's cookie by the prefix every Hub's cookie shares, never this Hub's own name (the document is open to anyone)", () => {
    assert.equal(doc.components.securitySchemes.dashboardSession?.name, 'cihub_session_<hub>');
    assert.ok(!JSON.stringify(doc).includes(sessionCookieName(operatorKey)), "this Hub's cookie name is told only to a browser that signs in");
  });

  it('names the trailing wildcard of a model card route as the model it holds', () => {
    const op = doc.paths['/api/inference/pool/v1/models/{model}']?.get as (Operation & { parameters?: { name: string; in: string }[] }) | undefined;
    assert.deepEqual(
      op?.parameters?.map((p) => [p.name, p.in]),
      [['model', 'path']],
    );
  });

  it('files a route under operator or observability only when its access says so', () => {
    const operatorOnly = [{ operatorKey: [] }];
    const readable = [{ operatorKey: [] }, { qaReadKey: [] }];
    const wrong: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const tag = op.tags[0];
        const sec = JSON.stringify(op.security);
        const agrees =
          tag === 'operator'
            ? sec === JSON.stringify(operatorOnly)
            : tag === 'observability'
              ? sec === JSON.stringify(readable)
              : sec !== JSON.stringify(readable);
        if (!agrees) wrong.push(`${method.toUpperCase()} ${path}: tagged ${tag}, security ${sec}`);
      }
    }
    assert.deepEqual(wrong, []);
  });

  it('describes the settings PATCH body from the rules the Hub validates it with', async () => {
    const schema = doc.paths['/api/inference/pool/settings']?.patch?.requestBody?.content['application/json'].schema;
    assert.ok(schema);
    assert.deepEqual(
      Object.keys(schema.properties).sort(),
      Object.keys(SETTING_RULES)
        .filter((k) => !NOT_PATCHABLE.has(k))
        .sort(),
    );
    assert.deepEqual(schema.properties.poolHealthPollSeconds, { type: 'integer', minimum: 10, maximum: 300, default: 30 });
    // The bounds the document states are the ones the Hub enforces.
    const res = await request(`${hub.url}/api/inference/pool/settings`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${operatorKey}` },
      body: JSON.stringify({ poolHealthPollSeconds: schema.properties.poolHealthPollSeconds!.maximum! + 1 }),
    });
    assert.equal(res.statusCode, 400);
    await res.body.dump();
  });
});
