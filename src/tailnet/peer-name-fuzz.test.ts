/**
 * Generated names against the peer-name rule (issue 15, item 2: name injection). Whatever text
 * arrives, normalizePeerName answers without throwing, and a name it accepts is a bare DNS name
 * in canonical form that it did not clean up into shape: the input itself, less surrounding
 * ASCII whitespace, in lower case, less one trailing dot. A rule that folded a look-alike into
 * an ASCII letter (the Kelvin sign lower-cases to k) or stripped an invisible character would
 * accept a name that is not the one the caller wrote, and fails here.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { fuzzRuns } from '../../test/helpers/fuzz-runs.js';
import { MAX_LABEL_LENGTH, MAX_NAME_LENGTH, normalizePeerName } from './peer-name.js';

/** Pure and cheap. */
const BOUNDED_RUNS = 1_000;

/** Characters that look like, fold into, or hide beside the ones a name may hold. */
const tricky = fc.constantFrom(
  '\u212A', // Kelvin sign, lower-cases to k
  '\u0130', // dotted capital I
  '\u0430', // Cyrillic a
  '\uFF0E', // fullwidth full stop
  '\u3002', // ideographic full stop
  '\u200B', // zero-width space
  '\uFEFF', // byte-order mark
  '\u00A0', // no-break space
  '\u2028', // line separator
  '\u0301', // combining acute accent
  '@',
  ':',
  '/',
  '%',
  '\\',
  '[',
  ']',
  '.',
  '-',
  ' ',
  '\t',
  '\n',
);
const nameChar = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-.') },
  { weight: 1, arbitrary: tricky },
);
const label = fc.array(nameChar, { minLength: 1, maxLength: 70 }).map((cs) => cs.join(''));
const candidate = fc.oneof(
  fc.array(label, { minLength: 1, maxLength: 5 }).map((ls) => ls.join('.')),
  fc.tuple(fc.array(label, { minLength: 2, maxLength: 4 }), fc.constantFrom('', '.', '..', ' ', '\uFEFF')).map(([ls, end]) => `${ls.join('.')}${end}`),
  fc.string({ unit: 'binary', maxLength: 80 }),
);

const trimAscii = (s: string) => s.replace(/^[\t\n\v\f\r ]+|[\t\n\v\f\r ]+$/g, '');

describe('peer names, generated', () => {
  it('never throws, and accepts only the caller’s own text in canonical form, a bare multi-label DNS name', () => {
    fc.assert(
      fc.property(candidate, (raw) => {
        const result = normalizePeerName(raw);
        if (!result.ok) {
          assert.equal(typeof result.reason, 'string');
          return;
        }
        const { name } = result;
        assert.match(name, /^[a-z0-9-]+(\.[a-z0-9-]+)+$/, `accepted ${JSON.stringify(raw)} as ${JSON.stringify(name)}`);
        assert.ok(name.length <= MAX_NAME_LENGTH);
        for (const l of name.split('.')) assert.ok(l.length <= MAX_LABEL_LENGTH && !l.startsWith('-') && !l.endsWith('-'));
        const lower = trimAscii(raw).toLowerCase();
        assert.equal(name, lower.endsWith('.') ? lower.slice(0, -1) : lower, `${JSON.stringify(raw)} was cleaned up rather than refused`);
        assert.equal(Buffer.byteLength(trimAscii(raw)), trimAscii(raw).length, `${JSON.stringify(raw)} held non-ASCII text`);
      }),
      { numRuns: fuzzRuns(BOUNDED_RUNS) },
    );
  });
});
