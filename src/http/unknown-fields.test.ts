import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { unknownFieldsSubject } from './unknown-fields.js';

describe('unknownFieldsSubject', () => {
  const rows: readonly { name: string; keys: string[]; subject: string }[] = [
    { name: 'one field, singular', keys: ['expiresAt'], subject: 'expiresAt is' },
    { name: 'two fields, plural', keys: ['PIN', 'code'], subject: 'PIN, code are' },
    { name: 'past three, the rest counted', keys: ['a', 'b', 'c', 'd', 'e'], subject: 'a, b, c and 2 more are' },
    { name: 'control characters and spaces replaced', keys: ['x\ny z\u001b[2J'], subject: 'x?y?z?[2J is' },
    { name: 'a long name shortened', keys: ['k'.repeat(500)], subject: `${'k'.repeat(40)} is` },
  ];
  for (const row of rows) it(row.name, () => assert.equal(unknownFieldsSubject(row.keys), row.subject));
});
