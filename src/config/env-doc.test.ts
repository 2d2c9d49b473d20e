/**
 * The operator guide's Environment table names every variable the Hub reads through its schema,
 * so a knob cannot ship undocumented (four placement knobs did). A row may name a second
 * variable by its suffix alone: `TAILSCALE_OAUTH_CLIENT_ID` / `_SECRET`.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ENV_SCHEMA } from './env.js';

const guide = readFileSync(resolve(import.meta.dirname, '../../../docs/operator-guide.md'), 'utf8');
const section = guide.slice(guide.indexOf('\n## Environment\n'), guide.indexOf('\n## ', guide.indexOf('\n## Environment\n') + 1));

/** The variables each table row names in its first cell, suffixes expanded against the row's first name. */
function documentedVariables(text: string): Set<string> {
  const names = new Set<string>();
  for (const row of text.matchAll(/^\| ([^|]+) \|/gm)) {
    const cell = [...row[1]!.matchAll(/`([A-Z_][A-Z0-9_]*)`/g)].map((m) => m[1]!);
    const first = cell[0];
    for (const name of cell) names.add(name.startsWith('_') && first !== undefined ? `${first.slice(0, first.lastIndexOf('_'))}${name}` : name);
  }
  return names;
}

describe('docs/operator-guide.md, Environment', () => {
  const documented = documentedVariables(section);
  for (const variable of Object.keys(ENV_SCHEMA.shape)) {
    it(`has a row for ${variable}`, () => assert.ok(documented.has(variable), `${variable} is not in the Environment table`));
  }
});
