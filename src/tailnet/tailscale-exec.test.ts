import assert from 'node:assert/strict';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { tailscaleRunner } from './tailscale-exec.js';
import { scratchDir } from '../../test/helpers/scratch-dir.js';

function stub(body: string): string {
  const dir = scratchDir('tailscale-stub-');
  const file = join(dir, 'tailscale');
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
}

describe('tailscaleRunner', () => {
  it('passes the arguments without a shell and answers stdout', async () => {
    const run = await tailscaleRunner(stub('printf "%s|" "$@"'))(['status', '--json', '$(echo no)']);
    assert.deepEqual(run, { ok: true, stdout: 'status|--json|$(echo no)|' });
  });
  it('a non-zero exit is failed, with its exit code and stderr', async () => {
    const run = await tailscaleRunner(stub('echo "Access denied" >&2; exit 3'))(['serve']);
    assert.deepEqual(run, { ok: false, kind: 'failed', exitCode: 3, stderr: 'Access denied' });
  });
  it('a command that outlives the deadline is killed and reported as a timeout', async () => {
    const run = await tailscaleRunner(stub('exec sleep 30'), { timeoutMs: 200 })(['status']);
    assert.equal(run.ok ? 'ok' : run.kind, 'timeout');
  });
  it('output past the bound is refused, not buffered', async () => {
    const run = await tailscaleRunner(stub('head -c 100000 /dev/zero'), { maxBytes: 1000 })(['status']);
    assert.equal(run.ok ? 'ok' : run.kind, 'too-large');
  });
  it('no binary (none on PATH, or a path that is gone) is missing', async () => {
    assert.equal((await tailscaleRunner(null)(['status'])).ok, false);
    const gone = await tailscaleRunner('/nonexistent/tailscale')(['status']);
    assert.equal(gone.ok ? 'ok' : gone.kind, 'missing');
  });
});
