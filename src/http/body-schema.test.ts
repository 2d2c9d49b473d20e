import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HubError } from '../errors.js';
import { parseBody } from './body-schema.js';
import { API_KEY_REQUEST } from './operator-routes.js';

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
