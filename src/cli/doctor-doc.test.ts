/**
 * The operator guide's table of `cihub pool doctor` checks names every check the doctor can
 * print, and none it cannot: the codes are read from doctor-checks.ts itself, since several
 * checks appear only in the state they describe (D1, F3, M1, M2, P3).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const REPO = resolve(import.meta.dirname, '../../..');
const source = readFileSync(resolve(REPO, 'src/cli/doctor-checks.ts'), 'utf8');
const guide = readFileSync(resolve(REPO, 'docs/operator-guide.md'), 'utf8');

const inCode = new Set([...source.matchAll(/check\(\s*'([A-Z]\d)'/g)].map((m) => m[1]!));
const table = guide.slice(guide.indexOf('| Check | Passes when |'));
const rows = table.slice(0, table.search(/\n\n/)).split('\n').slice(2);
const inGuide = new Set(rows.flatMap((row) => (row.split('|')[1] ?? '').split(',').map((code) => code.trim())));

describe("docs/operator-guide.md's doctor table", () => {
  it('reads the codes from both places', () => {
    assert.ok(inCode.size >= 10 && inGuide.size >= 10, `${[...inCode].join(' ')} / ${[...inGuide].join(' ')}`);
  });

  it('lists every check the doctor has, and no other', () => {
    assert.deepEqual([...inGuide].sort(), [...inCode].sort());
  });
});
