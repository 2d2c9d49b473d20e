/**
 * What the log says of one engine probe, given the answer before it: a warning only when the
 * engine starts failing or fails in the other way, debug while it stays down the same way, and
 * one info line when it answers again.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { EngineEndpoint } from '../config/env.js';
import { engineHealthLine } from './health-snapshot-log.js';
import type { ProbeAnswer } from './types.js';

const ENGINE: EngineEndpoint = { id: 'vllm', kind: 'vllm', url: 'http://127.0.0.1:8000' };
const HEALTHY: ProbeAnswer = { running: true, healthy: true, models: [], error: null };
const REFUSED: ProbeAnswer = { running: false, healthy: false, models: [], error: 'fetch failed (ECONNREFUSED)' };
const WRONG_SHAPE: ProbeAnswer = { running: true, healthy: false, models: [], error: 'HTTP 500' };

const levelOf = (previous: ProbeAnswer | null, next: ProbeAnswer, failedBefore = 0) => engineHealthLine(ENGINE, previous, next, failedBefore)?.level ?? null;

describe('the log line for an engine probe', () => {
  it('says nothing of an engine that answers, as it did or for the first time', () => {
    assert.equal(levelOf(null, HEALTHY), null);
    assert.equal(levelOf(HEALTHY, HEALTHY), null);
  });

  it('warns at the first failure, after a good answer or before any, naming the engine and the reason', () => {
    assert.equal(levelOf(null, REFUSED), 'warn');
    assert.deepEqual(engineHealthLine(ENGINE, HEALTHY, REFUSED, 0), {
      level: 'warn',
      fields: { engine: 'vllm', kind: 'vllm', url: 'http://127.0.0.1:8000', failures: 1, reason: 'fetch failed (ECONNREFUSED)' },
      msg: 'health probe of vllm engine at http://127.0.0.1:8000 failed: fetch failed (ECONNREFUSED)',
    });
  });

  it('logs a repeat of the same failure at debug, and warns again when it fails the other way', () => {
    assert.equal(levelOf(REFUSED, REFUSED, 3), 'debug');
    assert.equal(levelOf(WRONG_SHAPE, WRONG_SHAPE, 3), 'debug');
    assert.equal(levelOf(REFUSED, WRONG_SHAPE, 3), 'warn');
    assert.equal(levelOf(WRONG_SHAPE, REFUSED, 3), 'warn');
  });

  it('logs the first good answer after failures at info, with how many failed', () => {
    assert.deepEqual(engineHealthLine(ENGINE, REFUSED, HEALTHY, 7), {
      level: 'info',
      fields: { engine: 'vllm', kind: 'vllm', url: 'http://127.0.0.1:8000', failures: 7 },
      msg: 'engine reachable',
    });
  });
});
