/**
 * The operator guide's Settings table has a row for every setting the Hub validates, so a setting
 * cannot ship undocumented (the context cap and the slot statement did: they were reachable only
 * through their own commands' prose), and each row's default and range are the ones the Hub
 * enforces, so a changed default or bound cannot leave the table saying the old one.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { DEFAULT_SETTINGS, SETTING_RULES } from './settings-schema.js';

const guide = readFileSync(resolve(import.meta.dirname, '../../../docs/operator-guide.md'), 'utf8');
const start = guide.indexOf('\n## Settings\n');
const section = guide.slice(start, guide.indexOf('\n## ', start + 1));

/** Each table row's default and range cells, by the setting its first cell names. */
const rows = new Map([...section.matchAll(/^\| `([A-Za-z]+)` \| ([^|]*) \| ([^|]*) \|/gm)].map((m) => [m[1]!, { default: m[2]!.trim(), range: m[3]!.trim() }]));
const documented = new Set(rows.keys());

/** How the table opens a rule's range cell: booleans say so, numbers give their bounds with an en dash. */
function rangeOpening(key: keyof typeof SETTING_RULES): string | null {
  const rule = SETTING_RULES[key];
  if (rule.kind === 'boolean') return 'boolean';
  if (rule.kind === 'pins') return null;
  return `${rule.min}–${rule.max}${'nullable' in rule && rule.nullable ? ', or null' : ''}`;
}

describe('docs/operator-guide.md, Settings', () => {
  it('has a Settings section', () => assert.ok(start >= 0));
  for (const setting of Object.keys(SETTING_RULES)) {
    it(`has a row for ${setting}`, () => assert.ok(documented.has(setting), `${setting} is not in the Settings table`));
  }
  for (const setting of Object.keys(SETTING_RULES) as (keyof typeof SETTING_RULES)[]) {
    it(`gives ${setting} the default and range the Hub enforces`, () => {
      const row = rows.get(setting);
      assert.ok(row, `${setting} is not in the Settings table`);
      assert.equal(row.default, JSON.stringify(DEFAULT_SETTINGS[setting]));
      const opening = rangeOpening(setting);
      if (opening !== null) assert.ok(row.range.startsWith(opening), `${setting}: the table says "${row.range}", the Hub enforces ${opening}`);
    });
  }
});
