/**
 * README.md and docs/*.md name every `cihub` command and every option it takes, so a command
 * cannot ship known only to `--help` (`cihub pool pin` and `unpin`, `demo --once` and
 * `logs --follow` were). --json, --yes and --help are the CLI's conventions, stated once for all.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { program } from './main.js';
import { everyCommand, withConventions } from './conventions.js';

const root = resolve(import.meta.dirname, '../../..');
const docs = [join(root, 'README.md'), ...readdirSync(join(root, 'docs')).flatMap((f) => (f.endsWith('.md') ? [join(root, 'docs', f)] : []))]
  .map((file) => readFileSync(file, 'utf8'))
  .join('\n')
  // A command or flag wrapped across two lines still names it.
  .replace(/\s+/g, ' ');

const CONVENTIONS = new Set(['--json', '--yes', '--help', '--version']);

function pathOf(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c !== null && c.parent !== null; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

describe('the docs name every cihub command and option', () => {
  const tree = withConventions(program);
  for (const cmd of everyCommand(tree).filter((c) => c.commands.length === 0)) {
    const path = pathOf(cmd);
    it(`cihub ${path}`, () => assert.ok(docs.includes(`cihub ${path}`), `no doc names "cihub ${path}"`));
    for (const option of cmd.options) {
      if (option.long === undefined || CONVENTIONS.has(option.long)) continue;
      it(`cihub ${path} ${option.long}`, () => assert.ok(docs.includes(option.long!), `no doc names ${option.long} (of cihub ${path})`));
    }
  }
  for (const option of tree.options) {
    if (option.long === undefined || CONVENTIONS.has(option.long)) continue;
    it(`cihub ${option.long}`, () => assert.ok(docs.includes(option.long!), `no doc names ${option.long}`));
  }
});
