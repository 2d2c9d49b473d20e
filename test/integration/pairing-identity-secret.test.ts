/**
 * A Hub whose identity.secret is empty, so no identity key can be made or re-made under it.
 * Status must say so (spec, "Failure modes": the reason is localNode.identity.identityError), doctor
 * must fail P2 with the fix, and a rotation must refuse before it unpairs anyone: it unpairs
 * every peer first, and a mint failing after that left a Hub with no pairings, no key and a 500.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DoctorCheck } from '../../src/cli/doctor-checks.js';
import { freshDataDir, runCli } from '../helpers/hub-process.js';
import { FakePeer, POOL, eventually, fqdn, pairFakeWithPin, peers, reservePorts, startNamedHub, status, type HubProcess } from './pairing-fixtures.js';

const EMPTY_SECRET = '\n';

interface ErrorAnswer {
  error?: { code?: string; message?: string };
}

async function p2(hub: HubProcess): Promise<DoctorCheck> {
  const doctor = await runCli(['pool', 'doctor', '--json'], { dataDir: hub.dataDir });
  const check = (JSON.parse(doctor.stdout) as { checks: DoctorCheck[] }).checks.find((c) => c.code === 'P2');
  assert.ok(check, doctor.stdout + doctor.stderr);
  return check;
}

describe('a Hub that has never made an identity, with an empty identity.secret', () => {
  let hub: HubProcess;
  before(async () => {
    const dataDir = freshDataDir();
    writeFileSync(join(dataDir, 'identity.secret'), EMPTY_SECRET, { mode: 0o600 });
    const { hub: port } = await reservePorts(['hub']);
    hub = await startNamedHub({ name: fqdn('no-secret'), port, origins: {}, dataDir });
  });
  after(async () => {
    await hub?.stop();
  });

  it('refuses a PIN with the secret to mend, not a rotation that would fail the same way', async () => {
    const pin = await hub.api<ErrorAnswer>('POST', `${POOL}/pairing-pin`);
    assert.equal(pin.status, 503, JSON.stringify(pin.json));
    assert.equal(pin.json.error?.code, 'HUB_ERR_IDENTITY_UNAVAILABLE');
    assert.match(pin.json.error?.message ?? '', /the file is empty/);
    assert.match(pin.json.error?.message ?? '', /remove that file/);
    assert.doesNotMatch(pin.json.error?.message ?? '', /rotate-identity/);
  });

  it('shows the reason in status, with no UUID or fingerprint, and doctor fails P2 with the fix', async () => {
    const identity = (await status(hub)).localNode.identity;
    assert.ok(identity, 'status names the failed identity instead of "not made yet"');
    assert.equal(identity.nodeUuid, null);
    assert.equal(identity.fingerprint, null);
    assert.match(identity.identityError ?? '', new RegExp(`the secret in ${join(hub.dataDir, 'identity.secret')} cannot be used: the file is empty`));

    const check = await p2(hub);
    assert.equal(check.verdict, 'fail', JSON.stringify(check));
    assert.match(check.found, /the file is empty/);
    assert.match(check.fix ?? '', /identity\.secret/);

    const text = await runCli(['pool', 'status'], { dataDir: hub.dataDir });
    assert.match(text.stdout, /identity\s+UNUSABLE: .*the file is empty; none could be made/);
  });

  it('refuses a rotation with 503 HUB_ERR_IDENTITY_SECRET_UNUSABLE', async () => {
    const rotated = await hub.api<ErrorAnswer>('POST', `${POOL}/identity/rotate`);
    assert.equal(rotated.status, 503, JSON.stringify(rotated.json));
    assert.equal(rotated.json.error?.code, 'HUB_ERR_IDENTITY_SECRET_UNUSABLE');
    assert.match(rotated.json.error?.message ?? '', /the file is empty/);
    assert.equal((await status(hub)).localNode.identity?.nodeUuid, null, 'no key was made');
  });
});

describe('a paired Hub whose identity.secret is emptied', () => {
  const fake = new FakePeer('kept-peer');
  let hub: HubProcess;
  let fingerprint: string;
  before(async () => {
    await fake.start();
    const { hub: port } = await reservePorts(['hub']);
    const start = (dataDir?: string) => startNamedHub({ name: fqdn('emptied'), port, origins: { [fake.name]: fake.origin }, ...(dataDir ? { dataDir } : {}) });
    hub = await start();
    await pairFakeWithPin(hub, fake);
    fingerprint = (await status(hub)).localNode.identity!.fingerprint!;
    await hub.stop();
    writeFileSync(join(hub.dataDir, 'identity.secret'), EMPTY_SECRET, { mode: 0o600 });
    hub = await start(hub.dataDir);
  });
  after(async () => {
    await hub?.stop();
    await fake.close();
  });

  it('refuses a rotation with 503 having changed nothing: the pairing, its row and the key stay, and the peer is told nothing', async () => {
    const identity = await eventually(async () => {
      const id = (await status(hub)).localNode.identity;
      return id?.identityError ? id : null;
    }, 'the unopenable key in status');
    assert.equal(identity.fingerprint, fingerprint);
    assert.equal((await p2(hub)).verdict, 'fail');

    const rotated = await hub.api<ErrorAnswer>('POST', `${POOL}/identity/rotate`);
    assert.equal(rotated.status, 503, JSON.stringify(rotated.json));
    assert.equal(rotated.json.error?.code, 'HUB_ERR_IDENTITY_SECRET_UNUSABLE');
    assert.match(rotated.json.error?.message ?? '', /every pairing stands/);

    assert.deepEqual(
      (await peers(hub)).map((p) => [p.nodeFqdn, p.status]),
      [[fake.name, 'connected']],
    );
    assert.equal(fake.received.filter((r) => r.url === `${POOL}/pair/unpair`).length, 0, 'no unpair was sent');
    assert.equal((await status(hub)).localNode.identity?.fingerprint, fingerprint, 'the stored key was not replaced');
  });
});
