import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { StopMatcher } from './stop-matcher.js';

describe('stop strings', () => {
  it('passes text straight through when there are none', () => {
    assert.deepEqual(new StopMatcher([]).push('abc'), { text: 'abc', stopped: false });
  });

  it('holds back a tail that may start a stop string and releases it when it does not', () => {
    const m = new StopMatcher(['END']);
    assert.deepEqual(m.push('the E'), { text: 'the ', stopped: false });
    assert.deepEqual(m.push('ND'), { text: '', stopped: true });
    const n = new StopMatcher(['END']);
    assert.deepEqual(n.push('an E'), { text: 'an ', stopped: false });
    assert.deepEqual(n.push('xit'), { text: 'Exit', stopped: false });
    assert.equal(n.flush(), '');
  });

  it('cuts at the earliest stop string across pieces and flushes what is left at the end', () => {
    const m = new StopMatcher(['\n\n', 'zz']);
    assert.deepEqual(m.push('one\n'), { text: 'one', stopped: false });
    assert.deepEqual(m.push('\ntwo'), { text: '', stopped: true });
    const n = new StopMatcher(['zz']);
    n.push('abz');
    assert.equal(n.flush(), 'z');
  });
});
