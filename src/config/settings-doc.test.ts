/**
 * The operator guide's Settings table has a row for every setting the Hub validates, so a setting
 * cannot ship undocumented (the context cap and the slot statement did: they were reachable only
 * through their own commands' prose).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { SETTING_RULES } from './settings-schema.js';

const guide = readFileSync(resolve(import.meta.dirname, '../../../docs/operator-guide.md'), 'utf8');
const start = guide.indexOf('\n## Settings\n');
const section = guide.slice(start, guide.indexOf('\n## ', start + 1));

/** The setting each table row names in its first cell. */
const documented = new Set([...section.matchAll(/^\| `([A-Za-z]+)` \|/gm)].map((m) => m[1]!));

describe('docs/operator-guide.md, Settings', () => {
  it('has a Settings section', () => assert.ok(start >= 0));
  for (const setting of Object.keys(SETTING_RULES)) {
    it(`has a row for ${setting}`, () => assert.ok(documented.has(setting), `${setting} is not in the Settings table`));
  }
});
