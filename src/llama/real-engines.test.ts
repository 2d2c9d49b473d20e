import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { realDemoCalls, startRealEngines } from './real-engines.js';

describe('real engines for the demo', () => {
  it("starts a two-slot tiny and a one-slot medium engine that answer the demo's calls, with a note that the text is noise", async () => {
    const real = await startRealEngines({ ctx: 1024 });
    try {
      assert.deepEqual([real.tiny.modelName, real.tiny.slots, real.medium.modelName, real.medium.slots], ['cihub-tiny:latest', 2, 'cihub-medium:latest', 1]);
      assert.ok(real.notes.some((n) => /random weights.*noise/.test(n)));
      for (const call of realDemoCalls()) {
        const engine = String(call.body['model']).includes('medium') ? real.medium : real.tiny;
        const res = await fetch(`${engine.url}${call.path}`, { method: 'POST', body: JSON.stringify(call.body) });
        assert.equal(res.status, 200, call.label);
        await res.text();
      }
      const cached = real.tiny.requests().filter((r) => r.route === '/v1/chat/completions');
      assert.equal(cached[1]?.cachedTokens, (cached[0]?.promptTokens ?? 0) - 1, 'the repeated call is read from the cache');
    } finally {
      await real.close();
    }
  });
});
