import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FaultBook, parseFault } from './faults.js';

describe('fault book', () => {
  it("prefers a model's own fault over the every-model one", () => {
    const book = new FaultBook();
    book.set({ mode: 'error' });
    book.set({ mode: 'hang', model: 'a' });
    assert.equal(book.take('a')?.mode, 'hang');
    assert.equal(book.take('b')?.mode, 'error');
  });

  it('clears a counted fault after its last request', () => {
    const book = new FaultBook();
    book.set({ mode: 'unused', count: 2 });
    assert.equal(book.list()[0]?.remaining, 2);
    assert.equal(book.take('m')?.mode, 'unused');
    assert.equal(book.take('m')?.mode, 'unused');
    assert.equal(book.take('m'), undefined);
    assert.deepEqual(book.list(), []);
  });

  it('replaces the fault of the same scope and clears a scope with mode none', () => {
    const book = new FaultBook();
    book.set({ mode: 'hang', model: 'a' });
    book.set({ mode: 'cut', model: 'a' });
    book.set({ mode: 'error' });
    assert.deepEqual(
      book
        .list()
        .map((f) => f.mode)
        .sort(),
      ['cut', 'error'],
    );
    book.set({ mode: 'none', model: 'a' });
    assert.deepEqual(
      book.list().map((f) => f.mode),
      ['error'],
    );
    book.set({ mode: 'none' });
    assert.deepEqual(book.list(), []);
  });

  it('keeps refuse engine-wide and out of per-request faults', () => {
    const book = new FaultBook();
    book.set({ mode: 'refuse', model: 'a' });
    assert.equal(book.has('refuse'), true);
    assert.equal(book.list()[0]?.model, undefined);
    assert.equal(book.take('a'), undefined);
  });

  it('validates faults sent to the control route', () => {
    assert.deepEqual(parseFault({ mode: 'error', status: 503, body: '{}', count: 1 }), { mode: 'error', status: 503, body: '{}', count: 1 });
    assert.throws(() => parseFault({ mode: 'explode' }), /mode must be one of/);
    assert.throws(() => parseFault({ mode: 'error', status: 42 }), /status/);
    assert.throws(() => parseFault('hang'), /JSON object/);
  });
});
