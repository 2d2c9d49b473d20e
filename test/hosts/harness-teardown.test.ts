/**
 * The harness leaves nothing on the machine: not when a host fails to start, and not when the
 * test process itself is killed mid-run (the next run clears what it left, processes included,
 * before it starts). "Nothing" is every namespace, root link, hosts file, temp dir and lock of
 * the harness (harnessLeftovers()).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { REPO_ROOT, eventually } from '../helpers/hub-process.js';
import { HOSTS_START_TIMEOUT_MS, harnessLeftovers, startHosts, type Hosts } from './harness.js';
import { NAMESPACE_PREFIX, namespacePids, processRuns } from './network.js';

describe('the hosts harness cleans up after itself', { timeout: HOSTS_START_TIMEOUT_MS * 3 }, () => {
  let second: Hosts<'a'> | null = null;
  after(() => second?.stop());

  it('removes everything it made when a host fails to start', { timeout: HOSTS_START_TIMEOUT_MS }, async () => {
    // A Hub refuses to start on a security list it cannot read (exit 2).
    await assert.rejects(
      startHosts({ hosts: { a: { models: ['m:1b'] }, b: { models: ['m:1b'], env: { HUB_TRUST_PROXY: '10.0.0.0/33' } } } }),
      /exited before it was ready/,
    );
    assert.deepEqual(harnessLeftovers(), []);
  });

  it('clears a killed run: its processes, namespaces, links and files, before the next run starts', { timeout: HOSTS_START_TIMEOUT_MS * 2 }, async () => {
    // A run in a process of its own, killed with SIGKILL once its host is up: no hook of its gets to run.
    const script = `import(${JSON.stringify(join(REPO_ROOT, 'dist/test/hosts/harness.js'))}).then((h) => h.startHosts({ hosts: { a: { models: ['m:1b'] } } })).then(() => process.stdout.write('up\\n'));`;
    const crashed = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    crashed.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise((res) => crashed.once('exit', res));
    await eventually(() => out.includes('up') || crashed.exitCode !== null, 'the doomed run to start its host', HOSTS_START_TIMEOUT_MS);
    assert.ok(out.includes('up'), 'the doomed run started');
    const orphans = namespacePids(`${NAMESPACE_PREFIX}a`);
    assert.ok(orphans.length >= 3, `the host's engine, Serve stand-in and Hub run in its namespace (pids ${orphans.join(', ')})`);
    crashed.kill('SIGKILL');
    await exited;
    const left = harnessLeftovers();
    assert.ok(left.includes(`namespace ${NAMESPACE_PREFIX}a`), `the killed run left its namespace behind: ${left.join(', ')}`);

    second = await startHosts({ hosts: { a: { models: ['m:1b'] } } });
    assert.deepEqual(orphans.filter(processRuns), [], 'every process of the killed run is gone');
    assert.equal((await second.a.status()).localNode.nodeFqdn, second.a.name, 'the new run works on the same names');
    await second.stop();
    second = null;
    assert.deepEqual(harnessLeftovers(), []);
  });
});
