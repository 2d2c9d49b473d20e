import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIGEST_MEMO_MIN_CHARS, DigestMemo } from './digest-memo.js';
import { sessionKey, sha256Hex } from './session-key.js';

/** A DigestMemo over the real SHA-256 that counts the digests it computed. */
function counted(bounds?: { maxEntries?: number; maxChars?: number }) {
  const computed: string[] = [];
  const memo = new DigestMemo((text) => {
    computed.push(text);
    return sha256Hex(text);
  }, bounds);
  return { memo, computed };
}

/** A long text that begins with `start`, built at run time as a parsed body's strings are (a new string object each call). */
const long = (start: string, chars = DIGEST_MEMO_MIN_CHARS * 2) => start + 'x'.repeat(chars - start.length);

/** A long text with `middle` in its middle: texts of one length built this way share both ends. */
const middled = (middle: string) => {
  const fill = 'x'.repeat(DIGEST_MEMO_MIN_CHARS * 2);
  return fill.slice(0, DIGEST_MEMO_MIN_CHARS) + middle + fill.slice(DIGEST_MEMO_MIN_CHARS);
};

describe('DigestMemo', () => {
  it('gives the SHA-256 of the text, short or long, held or not', () => {
    const { memo } = counted();
    for (const text of ['short', long('a'), long('a')]) assert.equal(memo.digestOf([text]), sha256Hex(text));
  });

  it('gives the SHA-256 of the parts joined, however the text is cut into them', () => {
    const { memo } = counted();
    const text = long('head');
    for (const parts of [[text], ['he', text.slice(2)], [text.slice(0, 100), text.slice(100, -3), text.slice(-3)], [text]]) {
      assert.equal(memo.digestOf(parts), sha256Hex(text));
    }
  });

  it('fingerprints and matches a text whose ends are spread over short parts', () => {
    const { memo, computed } = counted();
    const parts = () => ['a3[', 's6:', 'hashed', 's1:', 'm', long('middle'), 'z', 'f'];
    const other = () => ['a3[', 's6:', 'hashed', 's1:', 'n', long('middle'), 'z', 'f'];
    for (let i = 0; i < 3; i++) assert.equal(memo.digestOf(parts()), sha256Hex(parts().join('')));
    assert.equal(memo.digestOf(other()), sha256Hex(other().join('')));
    assert.equal(computed.length, 2);
  });

  it("digests a session's repeated long head once", () => {
    const { memo, computed } = counted();
    for (let i = 0; i < 3; i++) memo.digestOf([long('same head')]);
    assert.equal(computed.length, 1);
    assert.equal(memo.size, 1);
  });

  it('digests short texts every time and holds none of them', () => {
    const { memo, computed } = counted();
    const short = 'y'.repeat(DIGEST_MEMO_MIN_CHARS - 1);
    memo.digestOf([short]);
    memo.digestOf([short]);
    assert.deepEqual([computed.length, memo.size], [2, 0]);
  });

  it('never hands one text the digest of another that shares its length and both ends', () => {
    const { memo } = counted();
    const a = middled('a');
    const b = middled('b');
    assert.equal(a.length, b.length);
    assert.equal(a.slice(0, 100) + a.slice(-100), b.slice(0, 100) + b.slice(-100));
    assert.equal(memo.digestOf([a]), sha256Hex(a));
    assert.equal(memo.digestOf([b]), sha256Hex(b));
    assert.equal(memo.digestOf([a]), sha256Hex(a));
    assert.notEqual(sha256Hex(a), sha256Hex(b));
  });

  it('drops the least recently used text past its entry bound', () => {
    const { memo, computed } = counted({ maxEntries: 2 });
    memo.digestOf([long('a')]);
    memo.digestOf([long('b')]);
    memo.digestOf([long('a')]); // a is now the more recent
    memo.digestOf([long('c')]); // evicts b
    assert.equal(memo.size, 2);
    computed.length = 0;
    memo.digestOf([long('a')]);
    memo.digestOf([long('c')]);
    assert.equal(computed.length, 0);
    memo.digestOf([long('b')]);
    assert.equal(computed.length, 1);
  });

  it('holds at most its character bound, oldest dropped first', () => {
    const chars = DIGEST_MEMO_MIN_CHARS * 2;
    const { memo } = counted({ maxChars: chars * 3 });
    for (const m of ['a', 'b', 'c', 'd', 'e']) memo.digestOf([long(m, chars)]);
    assert.deepEqual([memo.size, memo.chars], [3, chars * 3]);
  });

  it('holds no text longer than its whole character bound', () => {
    const { memo, computed } = counted({ maxChars: DIGEST_MEMO_MIN_CHARS * 3 });
    const big = long('big', DIGEST_MEMO_MIN_CHARS * 4);
    assert.equal(memo.digestOf([big]), sha256Hex(big));
    memo.digestOf([big]);
    assert.deepEqual([computed.length, memo.size, memo.chars], [2, 0, 0]);
  });

  it('gives prefix affinity the session key the plain digest gives', () => {
    const { memo } = counted();
    const body = () => ({
      messages: [
        { role: 'system', content: long('system prompt') },
        { role: 'user', content: 'task A' },
      ],
    });
    const plain = sessionKey('m', null, body());
    assert.deepEqual(sessionKey('m', null, body(), memo.digestOf), plain);
    assert.deepEqual(sessionKey('m', null, body(), memo.digestOf), plain);
    assert.equal(memo.size, 1);
  });
});
