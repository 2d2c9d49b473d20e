/**
 * What the routing log keeps of text it did not write itself, and whose ids it honours
 * (issue 9, defects 6 and 14): every string a row holds is bounded, and an id asked for by a
 * peer can never replace or alter a row already held.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../util/clock.js';
import { MAX_ROW_TEXT_CHARS, RoutingLog, type OpenFields } from './ring.js';

const huge = 'x'.repeat(1_000_000);

function fields(id: string, extra: Partial<OpenFields> = {}): OpenFields {
  return { id, direction: 'inbound', path: '/v1/chat/completions', model: 'qwen3:8b', candidates: 1, stream: false, bodyBytes: 10, budgetMs: 1000, ...extra };
}

function newRing(): RoutingLog {
  let n = 0;
  return new RoutingLog({ size: 10, clock: new ManualClock(), bootId: 'boot', randomId: () => `fresh-${++n}` });
}

/** Every string anywhere in the row, with where it sits. */
function strings(value: unknown, at = 'row'): Array<[string, string]> {
  if (typeof value === 'string') return [[at, value]];
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([k, v]) => strings(v, `${at}.${k}`));
}

describe('routing-log rows hold bounded text', () => {
  it(`keeps at most ${MAX_ROW_TEXT_CHARS} characters of every string, whatever the caller handed in`, () => {
    const log = newRing();
    log.open(fields('r1', { model: huge, path: huge, node: huge }));
    const row = log.settle('r1', {
      outcome: 'failed',
      reason: huge,
      failedOverFrom: [huge, huge],
      attempts: [{ node: huge, backend: null, status: 503, reason: huge }],
      requestError: { signature: huge, basis: 'confirmed', confirms: huge },
    })!;
    const found = strings(row);
    assert.ok(found.length >= 10, `strings found: ${found.map(([at]) => at).join(', ')}`);
    for (const [at, text] of found) assert.ok(text.length <= MAX_ROW_TEXT_CHARS, `${at} holds ${text.length} characters`);
    assert.ok(row.model!.endsWith('\u2026'), 'a cut name says it was cut');
  });

  it('keeps text within the bound exactly as given', () => {
    const log = newRing();
    const name = 'hf.co/unsloth/Qwen3-Coder-30B-A3B-Instruct-GGUF:Q4_K_M';
    const row = log.open(fields('r1', { model: name, node: 'hub-b.tail0.ts.net' }));
    assert.equal(row.model, name);
    assert.equal(row.node, 'hub-b.tail0.ts.net');
  });
});

describe('routing-log ids', () => {
  it('gives a row a fresh id when the one asked for is held, and leaves the held row as it was', () => {
    const log = newRing();
    const own = log.open(fields('shared-id', { direction: 'outbound', model: 'mine' }));
    log.settle('shared-id', { outcome: 'served', status: 200 });
    const before = log.get('shared-id');
    const theirs = log.open(fields('shared-id', { model: 'theirs' }));
    assert.equal(theirs.id, 'fresh-1');
    assert.deepEqual(log.get('shared-id'), before);
    assert.equal(log.get('shared-id')!.direction, own.direction);
    assert.equal(log.summary().recorded, 2);
  });

  it('keeps the id asked for when no held row has it (both Hubs then share one id)', () => {
    const log = newRing();
    assert.equal(log.open(fields('from-the-sender')).id, 'from-the-sender');
  });
});
