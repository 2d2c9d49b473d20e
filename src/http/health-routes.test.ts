import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import { notReadyReasons, registerHealthRoutes, type ReadinessChecks } from './health-routes.js';

const READY: ReadinessChecks = { listening: true, storeOpen: true, draining: false };

describe('GET /readyz', () => {
  const cases: Array<{ name: string; checks: ReadinessChecks; status: number; reasons: string[] }> = [
    { name: 'ready: listening, store open, not draining', checks: READY, status: 200, reasons: [] },
    { name: 'draining after SIGTERM', checks: { ...READY, draining: true }, status: 503, reasons: ['draining'] },
    { name: 'the store is closed', checks: { ...READY, storeOpen: false }, status: 503, reasons: ['store_closed'] },
    { name: 'not listening', checks: { ...READY, listening: false }, status: 503, reasons: ['not_listening'] },
    {
      name: 'everything wrong at once, in a fixed order',
      checks: { listening: false, storeOpen: false, draining: true },
      status: 503,
      reasons: ['not_listening', 'store_closed', 'draining'],
    },
  ];
  for (const c of cases) {
    it(`answers ${c.status} when ${c.name}`, async () => {
      const app = Fastify();
      registerHealthRoutes(app, () => c.checks);
      const res = await app.inject({ method: 'GET', url: '/readyz' });
      assert.equal(res.statusCode, c.status);
      assert.deepEqual(res.json(), { ready: c.status === 200, reasons: c.reasons, checks: c.checks });
      assert.deepEqual(notReadyReasons(c.checks), c.reasons);
      await app.close();
    });
  }
});
