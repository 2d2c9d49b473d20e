/**
 * A Hub that has never made its identity, on a disk that refuses it (a filesystem-fault audit: a
 * full disk). The PIN's refusal, status, `cihub pool status` and doctor's P2 answered with the fix
 * for a broken secret ("write a secret into identity.secret, or remove that file"), which does
 * nothing for a disk; each must give the disk's fix instead, and once the disk answers again the
 * next PIN is minted at once, not up to 30 s later when the retry timer comes round.
 *
 * The refusal here is a read of identity.secret that the kernel answers with EIO, as a failing
 * disk does, made without root: the file is a link to /proc/self/mem, whose first page the Hub
 * has not mapped. A real full disk (ENOSPC writing identity.secret) is in chaos-data-dir.test.ts,
 * which needs root to mount one.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { DoctorCheck } from '../../src/cli/doctor-checks.js';
import { freshDataDir, runCli } from '../helpers/hub-process.js';
import { POOL, fqdn, reservePorts, startNamedHub, status, type HubProcess } from './pairing-fixtures.js';

interface ErrorAnswer {
  error?: { code?: string; message?: string; identityCause?: string };
}

describe('a Hub that has never made an identity, whose disk fails to read identity.secret', () => {
  let hub: HubProcess;
  before(async () => {
    const dataDir = freshDataDir();
    symlinkSync('/proc/self/mem', join(dataDir, 'identity.secret'));
    const { hub: port } = await reservePorts(['hub']);
    hub = await startNamedHub({ name: fqdn('failing-disk'), port, origins: {}, dataDir });
  });
  after(async () => {
    await hub?.stop();
  });

  it('refuses a PIN with the disk to mend, not the secret, and status, `pool status` and doctor P2 give the same fix', async () => {
    const pin = await hub.api<ErrorAnswer>('POST', `${POOL}/pairing-pin`);
    assert.equal(pin.status, 503, JSON.stringify(pin.json));
    assert.equal(pin.json.error?.code, 'HUB_ERR_IDENTITY_UNAVAILABLE');
    assert.equal(pin.json.error?.identityCause, 'disk-refused');
    const message = pin.json.error?.message ?? '';
    assert.match(message, /identity\.secret cannot be used: EIO/, 'the reason names the file and the error');
    assert.match(message, /Fix: free space on the disk holding the data dir, or make that disk writable again/);
    assert.match(message, /by itself within 30 s/);
    assert.doesNotMatch(message, /write a secret|remove that file|rotate-identity/);

    const identity = (await status(hub)).localNode.identity;
    assert.equal(identity?.nodeUuid, null);
    assert.equal(identity?.identityCause, 'disk-refused');
    const fix = identity?.identityFix ?? '';
    assert.ok(message.endsWith(`Fix: ${fix}`), `status gives the refusal's fix: ${fix}`);

    const doctor = await runCli(['pool', 'doctor', '--json'], { dataDir: hub.dataDir });
    const p2 = (JSON.parse(doctor.stdout) as { checks: DoctorCheck[] }).checks.find((c) => c.code === 'P2');
    assert.equal(p2?.verdict, 'fail', doctor.stdout + doctor.stderr);
    assert.equal(p2?.fix, fix);

    const text = await runCli(['pool', 'status'], { dataDir: hub.dataDir });
    assert.ok(text.stdout.includes(`none could be made, so this Hub cannot pair. Fix: ${fix}`), text.stdout);
  });

  it('mints the next PIN as soon as the disk answers, without waiting for the retry timer', async () => {
    rmSync(join(hub.dataDir, 'identity.secret'));
    const pin = await hub.api<{ pin?: string; fingerprint?: string } & ErrorAnswer>('POST', `${POOL}/pairing-pin`);
    assert.equal(pin.status, 200, JSON.stringify(pin.json));
    assert.match(pin.json.pin ?? '', /^\d{6}$/);
    const identity = (await status(hub)).localNode.identity;
    assert.equal(identity?.fingerprint, pin.json.fingerprint);
    assert.equal(identity?.identityCause, null);
  });
});
