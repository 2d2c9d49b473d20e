/**
 * Config that refuses nonsense (issue 12, item 6): a Hub started with a value it cannot use says
 * so once, naming the variable, the value and what it used instead; a port it would have to guess
 * stops it from starting, with exit code 2 (a usage error: the fix is in how it was started).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HEAP_GROWING_PERCENT } from '../../src/util/heap-growth.js';
import { freshDataDir, runCli, startHubProcess } from '../helpers/hub-process.js';

const FLAG_RECORDER = join(import.meta.dirname, '../helpers/v8-flag-recorder.js');

/** The heap-growth flags a Hub started with this environment handed to V8 by the time it answered. */
async function heapGrowthFlagsOf(env: Record<string, string>): Promise<string[]> {
  const record = join(freshDataDir(), 'v8-flags');
  const hub = await startHubProcess({ env: { ...env, V8_FLAG_RECORD: record }, nodeArgs: [`--import=${FLAG_RECORDER}`] });
  await hub.stop();
  if (!existsSync(record)) return [];
  return readFileSync(record, 'utf8')
    .split('\n')
    .filter((flag) => flag.startsWith('--heap-growing-percent'));
}

describe('environment values at start', () => {
  it('logs one warning for each unusable value, naming it and what was used instead', async () => {
    const hub = await startHubProcess({ env: { HUB_POOL_ROUTING_LOG_SIZE: 'big', HUB_POOL_USER_DISABLED: 'ture' } });
    try {
      const lines = hub
        .log()
        .split('\n')
        .filter((l) => l.includes('"variable"'))
        .map((l) => JSON.parse(l) as { level: number; variable: string; value: string; usedInstead: string; msg: string });
      assert.deepEqual(
        lines.map((l) => [l.variable, l.value, l.usedInstead, l.msg]),
        [
          ['HUB_POOL_USER_DISABLED', 'ture', 'false', 'HUB_POOL_USER_DISABLED=ture is not one of true, false, 1, 0, yes, no, on, off; using false'],
          ['HUB_POOL_ROUTING_LOG_SIZE', 'big', '200', 'HUB_POOL_ROUTING_LOG_SIZE=big is not a whole number; using 200'],
        ],
      );
      assert.ok(
        lines.every((l) => l.level === 40),
        'logged as warnings',
      );
      const status = await hub.api<{ enabled: boolean }>('GET', '/api/inference/pool/status');
      assert.equal(status.json.enabled, true, 'the refused flag did not switch pooling off');
    } finally {
      await hub.stop();
    }
  });

  it('reports what it set aside at start in status, `cihub pool status` and doctor H3, not only in its log; a refused change adds nothing, a written one rewords the line of the values it dropped and keeps the one of the keys it kept', async () => {
    const dataDir = freshDataDir();
    writeFileSync(join(dataDir, 'settings.json'), JSON.stringify({ poolHealthPollSeconds: 5, poolNoSuchSetting: true }), { mode: 0o600 });
    const hub = await startHubProcess({ dataDir, env: { HUB_POOL_ROUTING_LOG_SIZE: 'big' } });
    try {
      const logged = hub
        .log()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { level: number; msg: string })
        .filter((l) => l.level === 40)
        .map((l) => l.msg);
      const sizeWarning = 'HUB_POOL_ROUTING_LOG_SIZE=big is not a whole number; using 200';
      assert.ok(logged.includes(sizeWarning), logged.join('\n'));
      const valuesWarning = logged.find((m) => m.startsWith('settings.json had values the Hub could not use'));
      assert.ok(valuesWarning?.includes('poolHealthPollSeconds must be'), logged.join('\n'));
      const keysWarning = logged.find((m) => m.startsWith('settings.json has a key this cihub has no setting for'));
      assert.ok(keysWarning?.includes('poolNoSuchSetting'), logged.join('\n'));

      assert.equal((await hub.api('PATCH', '/api/inference/pool/settings', { poolHealthPollSeconds: 5 })).status, 400);
      const status = await hub.api<{ startupWarnings: string[] }>('GET', '/api/inference/pool/status');
      assert.deepEqual(status.json.startupWarnings, [sizeWarning, valuesWarning, keysWarning], 'the same sentences as the log, in its order');

      const shown = await runCli(['pool', 'status'], { dataDir });
      assert.equal(shown.code, 0, shown.stderr);
      assert.ok(shown.stdout.includes(`!! at start-up: ${sizeWarning}`), shown.stdout);
      assert.ok(shown.stdout.includes(`!! at start-up: ${valuesWarning}`), shown.stdout);
      assert.ok(shown.stdout.includes(`!! at start-up: ${keysWarning}`), shown.stdout);

      const doctor = await runCli(['pool', 'doctor', '--json'], { dataDir });
      const h3 = (JSON.parse(doctor.stdout) as { checks: { code: string; verdict: string; found: string }[] }).checks.find((c) => c.code === 'H3');
      assert.equal(h3?.verdict, 'warn');
      assert.ok(h3?.found.includes(sizeWarning), h3?.found);

      // A change rewrites the file without the bad value: "fix them in the file" is no longer true
      // of it. The key with no setting here is still in the file, so its line stands as it was.
      assert.equal((await hub.api('PATCH', '/api/inference/pool/settings', { poolLocalAffinity: 2 })).status, 200);
      const after = await hub.api<{ startupWarnings: string[] }>('GET', '/api/inference/pool/status');
      assert.equal(after.json.startupWarnings[0], sizeWarning);
      assert.match(
        after.json.startupWarnings[1] ?? '',
        /^settings\.json had values .* has since rewritten the file without them: .*poolHealthPollSeconds must be a whole number from 10 to 300; got 5$/,
      );
      assert.equal(after.json.startupWarnings[2], keysWarning);
      assert.equal(after.json.startupWarnings.length, 3, 'replaced in place, not added');
    } finally {
      await hub.stop();
    }
  });

  it('hands V8 the heap growth HUB_HEAP_GROWING_PERCENT names, its default when unset, and none at 0', async () => {
    assert.deepEqual(await heapGrowthFlagsOf({ HUB_HEAP_GROWING_PERCENT: '40' }), ['--heap-growing-percent=40']);
    assert.deepEqual(await heapGrowthFlagsOf({}), [`--heap-growing-percent=${HEAP_GROWING_PERCENT}`]);
    assert.deepEqual(await heapGrowthFlagsOf({ HUB_HEAP_GROWING_PERCENT: '0' }), []);
  });

  it('refuses to start on an API_PORT that is not a port, instead of binding 5002', async () => {
    const res = await runCli(['serve'], { dataDir: freshDataDir(), env: { API_PORT: '50o2', OLLAMA_URL: '', VLLM_URL: '', LEMONADE_URL: '', OMLX_URL: '' } });
    assert.equal(res.stderr, 'API_PORT=50o2 is not a whole number: fix or unset it.\n');
    assert.equal(res.code, 2, 'a value the Hub cannot start with is a usage error, like a wrong flag');
  });

  for (const [how, args, env, said] of [
    ['HUB_HOST', [], { HUB_HOST: 'not a host!' }, 'HUB_HOST=not a host! is not an IP address or a host name: fix or unset it.\n'],
    ['--host', ['--host', 'nowhere!'], {}, '--host "nowhere!" is not an IP address or a host name: give an address such as 127.0.0.1, 0.0.0.0 or ::1.\n'],
  ] as const) {
    it(`refuses to start on a ${how} that is no address, as a usage error, before writing anything`, async () => {
      const dataDir = freshDataDir();
      const res = await runCli(['serve', ...args], { dataDir, env: { ...env, OLLAMA_URL: '', VLLM_URL: '', LEMONADE_URL: '', OMLX_URL: '' } });
      assert.equal(res.stderr, said);
      assert.equal(res.code, 2);
      assert.deepEqual(readdirSync(dataDir), [], 'no operator key, settings or database was written');
    });
  }

  // Both used to fail at listen, after the operator key, settings and database had been written,
  // as "cihub failed: getaddrinfo ENOTFOUND ..." with exit code 1.
  for (const [how, args, env, said] of [
    ['HUB_HOST', [], { HUB_HOST: 'nosuch.invalid' }, 'HUB_HOST=nosuch.invalid does not resolve to an address'],
    ['--host', ['--host', '192.0.2.1'], {}, '--host "192.0.2.1" is not an address of this machine'],
  ] as const) {
    it(`refuses to start on a ${how} this machine cannot listen on, as a usage error, before writing anything`, async () => {
      const dataDir = freshDataDir();
      const res = await runCli(['serve', ...args], { dataDir, env: { ...env, OLLAMA_URL: '', VLLM_URL: '', LEMONADE_URL: '', OMLX_URL: '' } });
      assert.ok(res.stderr.startsWith(said), res.stderr);
      assert.equal(res.code, 2);
      assert.deepEqual(readdirSync(dataDir), [], 'no operator key, settings or database was written');
    });
  }

  it('refuses to start on a security list it cannot read, as a usage error naming the entry', async () => {
    const res = await runCli(['serve'], {
      dataDir: freshDataDir(),
      env: { HUB_TRUST_PROXY: '10.0.0.0/33', OLLAMA_URL: '', VLLM_URL: '', LEMONADE_URL: '', OMLX_URL: '' },
    });
    assert.equal(res.stderr, 'HUB_TRUST_PROXY entry "10.0.0.0/33" is not an IP address or a CIDR range (e.g. 10.0.0.0/8, fd00::/8)\n');
    assert.equal(res.code, 2);
  });
});
