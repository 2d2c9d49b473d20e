import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import { NO_ROUTE_SCHEMAS } from './no-route-schemas.js';

describe('NO_ROUTE_SCHEMAS', () => {
  it('lets a server without route schemas start and answer', async () => {
    const app = Fastify({ schemaController: NO_ROUTE_SCHEMAS });
    app.post('/echo', async (request) => ({ got: request.body }));
    const res = await app.inject({ method: 'POST', url: '/echo', payload: { a: 1 } });
    assert.deepEqual(res.json(), { got: { a: 1 } });
    await app.close();
  });

  it('refuses to start a server whose route declares a body schema, saying to use zod', async () => {
    const app = Fastify({ schemaController: NO_ROUTE_SCHEMAS });
    app.post('/typed', { schema: { body: { type: 'object' } } }, async () => ({}));
    await assert.rejects(async () => app.ready(), /route schemas are not compiled on this Hub/);
  });

  it('refuses to start a server whose route declares a response schema', async () => {
    const app = Fastify({ schemaController: NO_ROUTE_SCHEMAS });
    app.get('/typed', { schema: { response: { 200: { type: 'object' } } } }, async () => ({}));
    await assert.rejects(async () => app.ready(), /route schemas are not compiled on this Hub/);
  });
});
