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
