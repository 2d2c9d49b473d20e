import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { describe, it } from 'node:test';
import { findExecutable, findTailscale } from './find-executable.js';
import { scratchDir } from '../../test/helpers/scratch-dir.js';

describe('findExecutable', () => {
  const root = scratchDir('find-exe-');
  const first = join(root, 'first');
  const second = join(root, 'second');
  mkdirSync(first);
  mkdirSync(second);
  writeFileSync(join(first, 'tailscale'), '#!/bin/sh\n');
  chmodSync(join(first, 'tailscale'), 0o644);
  writeFileSync(join(second, 'tailscale'), '#!/bin/sh\n');
  chmodSync(join(second, 'tailscale'), 0o755);

  it('skips a file that is not executable and takes the next PATH entry', () => {
    assert.equal(findExecutable('tailscale', [first, second].join(delimiter)), join(second, 'tailscale'));
  });
  it('skips relative and empty entries', () => {
    assert.equal(findExecutable('tailscale', ['', 'relative/dir', second].join(delimiter)), join(second, 'tailscale'));
  });
  it('answers null when PATH has none or is unset', () => {
    assert.equal(findExecutable('tailscale', first), null);
    assert.equal(findExecutable('tailscale', undefined), null);
  });
});

describe('findTailscale', () => {
  const root = scratchDir('find-ts-');
  const onPath = join(root, 'bin');
  mkdirSync(onPath);
  writeFileSync(join(onPath, 'tailscale'), '#!/bin/sh\n');
  chmodSync(join(onPath, 'tailscale'), 0o755);
  const app = join(root, 'Tailscale.app-Tailscale');
  writeFileSync(app, '#!/bin/sh\n');
  chmodSync(app, 0o755);
  const empty = join(root, 'empty');
  mkdirSync(empty);

  const cases: readonly { name: string; path: string; platform: NodeJS.Platform; appCli: string; found: string | null }[] = [
    { name: 'on macOS with nothing on PATH, takes the app’s own command line (the App Store build)', path: empty, platform: 'darwin', appCli: app, found: app },
    { name: 'on macOS, takes tailscale on PATH first', path: onPath, platform: 'darwin', appCli: app, found: join(onPath, 'tailscale') },
    { name: 'on macOS without the app, finds none', path: empty, platform: 'darwin', appCli: join(root, 'absent'), found: null },
    { name: 'on Linux, never looks for the app', path: empty, platform: 'linux', appCli: app, found: null },
  ];
  for (const c of cases) it(c.name, () => assert.equal(findTailscale(c.path, c.platform, c.appCli), c.found));
});
