/**
 * The catalogue and its documentation agree (issue 9, defect 18): every code the Hub can answer
 * with has a row in docs/errors.md with the same HTTP status, and the page names no code the Hub
 * does not have.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ERROR_CATALOGUE } from './errors.js';

const page = readFileSync(resolve(import.meta.dirname, '../../docs/errors.md'), 'utf8');
/** code → status, from the table rows (the proxy's own OpenAI codes share a row and are not catalogue codes). */
const documented = new Map([...page.matchAll(/^\| `([A-Z][A-Z_]+)` \| (\d{3}) \|/gm)].map((m) => [m[1]!, Number(m[2])]));

describe('docs/errors.md', () => {
  for (const [code, { status }] of Object.entries(ERROR_CATALOGUE)) {
    it(`documents ${code} with status ${status}`, () => assert.equal(documented.get(code), status));
  }
  it('documents no code the catalogue lacks', () => {
    assert.deepEqual(
      [...documented.keys()].filter((code) => !(code in ERROR_CATALOGUE)),
      [],
    );
  });
});
