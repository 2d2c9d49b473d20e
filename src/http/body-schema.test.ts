import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HubError } from '../errors.js';
import { parseBody } from './body-schema.js';
import { API_KEY_REQUEST, readableKeyName } from './operator-routes.js';

describe('POST /api/hub/api-keys body', () => {
  it('parses a valid body, trimming the name', () => {
    assert.deepEqual(parseBody(API_KEY_REQUEST, { name: ' laptop ', scope: 'inference' }), { name: 'laptop', scope: 'inference' });
  });

  const refused: Array<{ name: string; body: unknown; message: string }> = [
    {
      name: 'a missing name and an unknown scope, both named',
      body: { scope: 'admin' },
      message: 'name must be 1 to 64 printable characters; scope must be one of inference, qa:read; got "admin"',
    },
    { name: 'a blank name', body: { name: '   ', scope: 'qa:read' }, message: 'name must be 1 to 64 printable characters' },
    { name: 'a control character in the name', body: { name: 'a\nb', scope: 'qa:read' }, message: 'name must be 1 to 64 printable characters' },
    { name: 'a name of 65 characters', body: { name: 'k'.repeat(65), scope: 'qa:read' }, message: 'name must be 1 to 64 printable characters' },
    {
      name: 'a field a key does not have, naming it',
      body: { name: 'laptop', scope: 'inference', expiresAt: '2027-01-01T00:00:00Z' },
      message: 'expiresAt is not taken here: a key has a name and a scope only',
    },
    {
      name: 'a body that is not an object',
      body: ['laptop'],
      message: 'the body must be a JSON object: { "name": "<label>", "scope": "inference" | "qa:read" }',
    },
  ];
  for (const c of refused) {
    it(`refuses ${c.name} with one 400`, () => {
      assert.throws(
        () => parseBody(API_KEY_REQUEST, c.body),
        (err: unknown) => err instanceof HubError && err.code === 'HUB_ERR_BAD_REQUEST' && err.message === c.message,
      );
    });
  }
});

describe('a readable API key name', () => {
  const table: readonly { name: string; value: string; readable: boolean }[] = [
    { name: 'a plain label', value: 'fleet-qa', readable: true },
    { name: '64 characters', value: 'k'.repeat(64), readable: true },
    { name: '64 emoji (each one character, two UTF-16 units)', value: '😀'.repeat(64), readable: true },
    { name: 'an emoji sequence joined by U+200D', value: 'team 👩‍💻', readable: true },
    { name: 'letters of another script', value: 'ラップトップ', readable: true },
    { name: '65 emoji', value: '😀'.repeat(65), readable: false },
    { name: 'a zero-width space alone (listed as a blank name)', value: '\u200b', readable: false },
    { name: 'a right-to-left override (turns the rest of the line around)', value: '\u202eevil', readable: false },
    { name: 'DEL', value: 'a\u007fb', readable: false },
    { name: 'a line separator', value: 'a\u2028b', readable: false },
    { name: 'a lone surrogate', value: 'a\ud800', readable: false },
    { name: 'nothing', value: '', readable: false },
  ];
  for (const c of table) it(`${c.readable ? 'takes' : 'refuses'} ${c.name}`, () => assert.equal(readableKeyName(c.value), c.readable));
});
