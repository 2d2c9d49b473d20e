import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../util/clock.js';
import { FORGET_AFTER_MS } from './bands.js';
import { MAX_BOOK_KEYS, ThroughputBook } from './book.js';

const key = (node: string, model = 'qwen3:8b') => ({ node, backendId: node === 'local' ? 'ollama' : null, model });

describe('ThroughputBook', () => {
  it('keeps readings per node, engine and model, in bands, smallest first', () => {
    const book = new ThroughputBook(new ManualClock());
    book.record(key('local'), { promptTokens: 20_000, tokensPerSec: 300, deadline: false });
    book.record(key('local'), { promptTokens: 5000, tokensPerSec: 500, deadline: false });
    book.record(key('local', 'other'), { promptTokens: 5000, tokensPerSec: 50, deadline: false });
    assert.deepEqual(
      book.readings(key('local')).map((r) => [r.fromTokens, r.tokensPerSec]),
      [
        [4096, 500],
        [16_384, 300],
      ],
    );
    assert.deepEqual(book.readings(key('core-2')), []);
  });

  it('keeps two local engines serving the same model apart', () => {
    const book = new ThroughputBook(new ManualClock());
    book.record({ node: 'local', backendId: 'ollama', model: 'm' }, { promptTokens: 8000, tokensPerSec: 300, deadline: false });
    book.record({ node: 'local', backendId: 'llama-cpp', model: 'm' }, { promptTokens: 8000, tokensPerSec: 30, deadline: false });
    assert.deepEqual(
      book.readings({ node: 'local', backendId: 'ollama', model: 'm' }).map((r) => r.tokensPerSec),
      [300],
    );
  });

  it('reads nothing for an engine or model it has no reading of, on a node it has readings of', () => {
    const book = new ThroughputBook(new ManualClock());
    book.record({ node: 'local', backendId: 'ollama', model: 'm' }, { promptTokens: 8000, tokensPerSec: 300, deadline: false });
    assert.deepEqual(book.readings({ node: 'local', backendId: 'vllm', model: 'm' }), []);
    assert.deepEqual(book.readings({ node: 'local', backendId: 'ollama', model: 'other' }), []);
  });

  it('keeps two models of one peer apart', () => {
    const book = new ThroughputBook(new ManualClock());
    book.record(key('core-2', 'a'), { promptTokens: 8000, tokensPerSec: 300, deadline: false });
    book.record(key('core-2', 'b'), { promptTokens: 8000, tokensPerSec: 30, deadline: false });
    assert.deepEqual(
      [book.readings(key('core-2', 'a')), book.readings(key('core-2', 'b'))].map((rs) => rs.map((r) => r.tokensPerSec)),
      [[300], [30]],
    );
  });

  it('drops only the evicted key: the other models of its engine and the other engines of its node still read', () => {
    const book = new ThroughputBook(new ManualClock());
    const first = { node: 'local', backendId: 'ollama', model: 'a' };
    const sameEngine = { node: 'local', backendId: 'ollama', model: 'b' };
    const otherEngine = { node: 'local', backendId: 'vllm', model: 'a' };
    for (const k of [first, sameEngine, otherEngine]) book.record(k, { promptTokens: 8000, tokensPerSec: 100, deadline: false });
    for (let i = 3; i <= MAX_BOOK_KEYS; i++) book.record(key(`n${i}`), { promptTokens: 8000, tokensPerSec: 100, deadline: false });
    assert.deepEqual(book.readings(first), []);
    assert.equal(book.readings(sameEngine).length, 1);
    assert.equal(book.readings(otherEngine).length, 1);
    // Once the engine's last model goes too, the node's other engine still reads.
    book.record(key('one-more'), { promptTokens: 8000, tokensPerSec: 100, deadline: false });
    assert.deepEqual(book.readings(sameEngine), []);
    assert.equal(book.readings(otherEngine).length, 1);
  });

  it('ignores a prompt under the first band and a rate that is not positive', () => {
    const book = new ThroughputBook(new ManualClock());
    book.record(key('local'), { promptTokens: 4095, tokensPerSec: 300, deadline: false });
    book.record(key('local'), { promptTokens: 8000, tokensPerSec: 0, deadline: false });
    assert.deepEqual(book.readings(key('local')), []);
  });

  it('forgets everything 2 hours after it was taken, and status then lists nothing', () => {
    const clock = new ManualClock();
    const book = new ThroughputBook(clock);
    book.record(key('local'), { promptTokens: 8000, tokensPerSec: 300, deadline: false });
    book.recordDecode(key('local'), 40);
    assert.equal(book.estimates().length, 1);
    clock.advance(FORGET_AFTER_MS + 1);
    assert.deepEqual(book.readings(key('local')), []);
    assert.deepEqual(book.estimates(), []);
  });

  it('shows each band with its age and the decode rate', () => {
    const clock = new ManualClock();
    const book = new ThroughputBook(clock);
    book.record(key('local'), { promptTokens: 8000, tokensPerSec: 300, deadline: false });
    book.recordDecode(key('local'), 40);
    clock.advance(5000);
    assert.deepEqual(book.estimates(), [
      {
        ...key('local'),
        bands: [{ fromTokens: 4096, promptTokens: 8000, tokensPerSec: 300, deadline: false, ageMs: 5000 }],
        decodeTokensPerSec: 40,
        decodeAgeMs: 5000,
      },
    ]);
  });

  it('gives the decode rate the age of its latest reading, and a key without one a null age, not 0', () => {
    const clock = new ManualClock();
    const book = new ThroughputBook(clock);
    book.recordDecode(key('local'), 40);
    clock.advance(60_000);
    book.recordDecode(key('local'), 35);
    book.record(key('core-2'), { promptTokens: 8000, tokensPerSec: 100, deadline: false });
    clock.advance(3 * 60_000);
    assert.deepEqual(
      book.estimates().map((e) => [e.node, e.decodeTokensPerSec, e.decodeAgeMs]),
      [
        ['local', 35, 3 * 60_000],
        ['core-2', null, null],
      ],
    );
  });

  it('holds at most MAX_BOOK_KEYS keys, the least recently written dropped first', () => {
    const book = new ThroughputBook(new ManualClock());
    for (let i = 0; i <= MAX_BOOK_KEYS; i++) book.record(key(`n${i}`), { promptTokens: 8000, tokensPerSec: 100, deadline: false });
    assert.deepEqual(book.readings(key('n0')), []);
    assert.equal(book.readings(key('n1')).length, 1);
    assert.equal(book.readings(key(`n${MAX_BOOK_KEYS}`)).length, 1);
  });

  it('a key evicted and written again reads only what was written after', () => {
    const book = new ThroughputBook(new ManualClock());
    book.record(key('n0'), { promptTokens: 8000, tokensPerSec: 50, deadline: false });
    for (let i = 1; i <= MAX_BOOK_KEYS; i++) book.record(key(`n${i}`), { promptTokens: 8000, tokensPerSec: 100, deadline: false });
    book.record(key('n0'), { promptTokens: 8000, tokensPerSec: 300, deadline: false });
    assert.deepEqual(
      book.readings(key('n0')).map((r) => r.tokensPerSec),
      [300],
    );
    assert.deepEqual(book.readings(key('n1')), []);
  });

  it('a key written again counts as the most recently written', () => {
    const book = new ThroughputBook(new ManualClock());
    for (let i = 0; i < MAX_BOOK_KEYS; i++) book.record(key(`n${i}`), { promptTokens: 8000, tokensPerSec: 100, deadline: false });
    book.recordDecode(key('n0'), 40);
    book.record(key('new'), { promptTokens: 8000, tokensPerSec: 100, deadline: false });
    assert.equal(book.readings(key('n0')).length, 1);
    assert.deepEqual(book.readings(key('n1')), []);
  });

  it('status lists only the keys its filter keeps', () => {
    const book = new ThroughputBook(new ManualClock());
    book.record(key('local'), { promptTokens: 8000, tokensPerSec: 300, deadline: false });
    book.record(key('core-2'), { promptTokens: 8000, tokensPerSec: 100, deadline: false });
    assert.deepEqual(
      book.estimates((k) => k.node === 'core-2').map((e) => e.node),
      ['core-2'],
    );
  });

  it('lists a key with bands and no decode rate, and one with only a decode rate', () => {
    const book = new ThroughputBook(new ManualClock());
    book.record(key('local'), { promptTokens: 8000, tokensPerSec: 300, deadline: false });
    book.recordDecode(key('core-2'), 40);
    assert.deepEqual(
      book.estimates().map((e) => [e.node, e.bands.length, e.decodeTokensPerSec]),
      [
        ['local', 1, null],
        ['core-2', 0, 40],
      ],
    );
  });

  it('status forgets bands and a decode rate timed before the wall clock was set back, rather than showing a negative age', () => {
    const clock = new ManualClock();
    const book = new ThroughputBook(clock);
    book.record(key('local'), { promptTokens: 8000, tokensPerSec: 300, deadline: false });
    book.recordDecode(key('local'), 40);
    clock.advance(-2 * 60 * 60_000);
    assert.deepEqual(book.estimates(), []);
  });

  it('shows a decode rate until 2 hours after it was timed, and not after', () => {
    const clock = new ManualClock();
    const book = new ThroughputBook(clock);
    book.recordDecode(key('local'), 40);
    clock.advance(FORGET_AFTER_MS);
    assert.equal(book.estimates()[0]?.decodeTokensPerSec, 40);
    clock.advance(1);
    assert.deepEqual(book.estimates(), []);
  });
});
