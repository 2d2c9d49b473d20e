import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { describe, it } from 'node:test';
import { findExecutable } from './find-executable.js';

describe('findExecutable', () => {
  const root = mkdtempSync(join(tmpdir(), 'find-exe-'));
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
