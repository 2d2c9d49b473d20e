import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { echoName, echoValue, notText } from './echo.js';

describe('how a refusal quotes what it was sent', () => {
  it('names a field in printable ASCII, at most 40 characters', () => {
    assert.equal(echoName('poolLocalAffinity'), 'poolLocalAffinity');
    assert.equal(echoName('a b\u202ec'), 'a?b?c');
    assert.equal(echoName('k'.repeat(1000)), 'k'.repeat(40));
  });

  const values: readonly [unknown, string][] = [
    ['1', '"1"'],
    [2.5, '2.5'],
    [null, 'null'],
    [Infinity, 'Infinity'],
    [-Infinity, '-Infinity'],
    [['a'], '["a"]'],
    [undefined, 'undefined'],
    ['x'.repeat(100), `"${'x'.repeat(79)}...`],
  ];
  for (const [value, quoted] of values) it(`quotes ${String(value).slice(0, 20)} as ${quoted.slice(0, 20)}`, () => assert.equal(echoValue(value), quoted));

  it('tells a missing text field from one of another type', () => {
    assert.equal(notText('nodeFqdn', undefined), 'nodeFqdn is missing');
    assert.equal(notText('nodeFqdn', null), 'nodeFqdn is missing');
    assert.equal(notText('nodeFqdn', ['a']), 'nodeFqdn must be a string; got ["a"]');
    assert.equal(notText('address', 123), 'address must be a string; got 123');
  });
});
