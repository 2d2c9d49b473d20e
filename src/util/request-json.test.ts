import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HubError } from '../errors.js';
import { MAX_JSON_DEPTH, nestsDeeperThan, parseRequestJson } from './request-json.js';

const nested = (depth: number) => Buffer.from('['.repeat(depth) + ']'.repeat(depth));
const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return err instanceof HubError ? err.code : `not a HubError: ${String(err)}`;
  }
  return 'no error';
};

describe('nestsDeeperThan', () => {
  const rows: Array<[string, string, number, boolean]> = [
    ['flat object', '{"a":1}', 1, false],
    ['two levels at a limit of one', '{"a":[1]}', 1, true],
    ['brackets inside a string do not count', '{"a":"[[[[{{{{"}', 1, false],
    ['an escaped quote does not end the string', '{"a":"\\"[[["}', 1, false],
    ['an escaped backslash before the closing quote', '{"a":"\\\\","b":[[1]]}', 2, true],
    ['siblings do not add up', '[[1],[2],[3]]', 2, false],
  ];
  for (const [name, text, max, deeper] of rows) it(name, () => assert.equal(nestsDeeperThan(Buffer.from(text), max), deeper));
});

describe('parseRequestJson', () => {
  it(`parses a body nested exactly ${MAX_JSON_DEPTH} deep`, () => assert.ok(Array.isArray(parseRequestJson(nested(MAX_JSON_DEPTH)))));
  it('refuses one level more with HUB_ERR_JSON_TOO_DEEP', () =>
    assert.equal(
      code(() => parseRequestJson(nested(MAX_JSON_DEPTH + 1))),
      'HUB_ERR_JSON_TOO_DEEP',
    ));
  it('refuses 100,000 levels without touching the stack', () =>
    assert.equal(
      code(() => parseRequestJson(nested(100_000))),
      'HUB_ERR_JSON_TOO_DEEP',
    ));
  it('refuses text that is not JSON with HUB_ERR_INVALID_JSON', () =>
    assert.equal(
      code(() => parseRequestJson(Buffer.from('{"a":'))),
      'HUB_ERR_INVALID_JSON',
    ));
  it('refuses __proto__ when asked to', () => {
    assert.equal(
      code(() => parseRequestJson(Buffer.from('{"__proto__":{"x":1}}'), { refusePrototypeKeys: true })),
      'HUB_ERR_INVALID_JSON',
    );
    assert.equal(
      code(() => parseRequestJson(Buffer.from('{"constructor":{"prototype":{}}}'), { refusePrototypeKeys: true })),
      'HUB_ERR_INVALID_JSON',
    );
    assert.deepEqual(parseRequestJson(Buffer.from('{"constructor":"fine"}'), { refusePrototypeKeys: true }), { constructor: 'fine' });
  });
});

describe('nestsDeeperThan reads strings as a byte-at-a-time scan does', () => {
  /** The scan as first written: every byte read, a backslash skipping the byte after it. */
  const byteAtATime = (raw: Uint8Array, maxDepth: number): boolean => {
    let depth = 0;
    let inString = false;
    for (let i = 0; i < raw.length; i++) {
      const c = raw[i]!;
      if (inString) {
        if (c === 0x5c) i++;
        else if (c === 0x22) inString = false;
      } else if (c === 0x22) inString = true;
      else if (c === 0x7b || c === 0x5b) {
        if (++depth > maxDepth) return true;
      } else if (c === 0x7d || c === 0x5d) depth--;
    }
    return false;
  };
  // A fixed seed: the same 3,000 inputs every run, drawn from the bytes that matter (quotes, backslashes,
  // brackets) and filler, some of it long enough for a string to outrun the bytes read one at a time.
  let seed = 13;
  // The low bits of this generator repeat quickly, so only its high bits are used.
  const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) >>> 12;
  const alphabet = Buffer.from('"\\\\[]{}a:,é');
  const filler = Buffer.from('lorem ipsum dolor sit amet, ');
  const piece = () => (next() % 8 === 0 ? filler.subarray(0, next() % filler.length) : Buffer.from([alphabet[next() % alphabet.length]!]));
  it('past the bytes read one at a time, a quote after an even run of backslashes closes the string and one after an odd run does not', () => {
    const long = 'x'.repeat(40);
    assert.equal(nestsDeeperThan(Buffer.from(`{"a":"${long}\\"","b":[[1]]}`), 1), true);
    assert.equal(nestsDeeperThan(Buffer.from(`{"a":"${long}\\\\","b":[[1]]}`), 1), true);
    assert.equal(nestsDeeperThan(Buffer.from(`{"a":"${long}\\","b":[[1]]}`), 1), false);
  });
  it('agrees on 3,000 random byte strings at limits 0-3, long and unterminated strings included', () => {
    let deeper = 0;
    for (let n = 0; n < 3000; n++) {
      const bytes = Buffer.concat(Array.from({ length: next() % 60 }, piece));
      const max = next() % 4;
      const expected = byteAtATime(bytes, max);
      if (expected) deeper++;
      assert.equal(nestsDeeperThan(bytes, max), expected, `${JSON.stringify(bytes.toString('latin1'))} at limit ${max}`);
    }
    assert.ok(deeper > 100 && deeper < 2900, `both verdicts drawn (${deeper} deeper)`);
  });
});
