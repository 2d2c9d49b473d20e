import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { keepAliveMs, nativeOptions } from './ollama-request.js';

describe('Ollama request fields', () => {
  it('reads keep_alive numbers as seconds and strings as Go durations', () => {
    assert.equal(keepAliveMs(30), 30_000);
    assert.equal(keepAliveMs('5m'), 300_000);
    assert.equal(keepAliveMs('1h30m'), 5_400_000);
    assert.equal(keepAliveMs('0'), 0);
    assert.equal(keepAliveMs('250ms'), 250);
  });

  it('treats any negative keep_alive as forever and ignores unreadable ones', () => {
    assert.equal(keepAliveMs(-1), -1);
    assert.equal(keepAliveMs('-5m'), -1);
    assert.equal(keepAliveMs('soon'), undefined);
    assert.equal(keepAliveMs(undefined), undefined);
  });

  it('takes num_ctx only when positive and num_predict as given', () => {
    assert.deepEqual(nativeOptions({ options: { num_ctx: 8192, num_predict: -1 } }), { numCtx: 8192, numPredict: -1 });
    assert.deepEqual(nativeOptions({ options: { num_ctx: 0 } }), { numCtx: undefined, numPredict: undefined });
    assert.deepEqual(nativeOptions({}), { numCtx: undefined, numPredict: undefined });
  });
});
