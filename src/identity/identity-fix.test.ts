import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { IdentityFailureCause } from './identity-failure-cause.js';
import { identityFix, identityUnavailable } from './identity-fix.js';

describe('identityFix', () => {
  const cases: readonly { cause: IdentityFailureCause; says: RegExp[]; never: RegExp[] }[] = [
    { cause: 'key-unopenable', says: [/^cihub pool rotate-identity \(it removes every pairing\), then pair again$/], never: [/identity\.secret/] },
    {
      cause: 'secret-invalid',
      says: [/^write a secret into identity\.secret in the data dir, or remove that file/, /again every 30 s$/],
      never: [/rotate-identity/, /free space/],
    },
    {
      cause: 'secret-unreadable',
      says: [/^let the account running the Hub read identity\.secret and write the data dir, or remove whatever is at identity\.secret/, /again every 30 s$/],
      never: [/rotate-identity/, /free space/],
    },
    {
      // A full disk was told to write a secret into identity.secret (and, for hub.db, to "retry in a moment").
      cause: 'disk-refused',
      says: [
        /^free space on the disk holding the data dir, or make that disk writable again/,
        /by itself within 30 s/,
        /at once when a pairing PIN or a pairing needs/,
      ],
      never: [/identity\.secret/, /rotate-identity/, /retry in a moment/],
    },
    { cause: 'other', says: [/log/, /again every 30 s$/], never: [/identity\.secret/, /rotate-identity/, /free space/] },
  ];
  for (const c of cases) {
    it(`gives ${c.cause} its own fix`, () => {
      const fix = identityFix(c.cause);
      for (const p of c.says) assert.match(fix, p);
      for (const p of c.never) assert.doesNotMatch(fix, p);
    });
  }

  it('gives every cause a different fix', () => {
    const fixes = cases.map((c) => identityFix(c.cause));
    assert.equal(new Set(fixes).size, fixes.length);
  });
});

describe('identityUnavailable', () => {
  it("answers 503 HUB_ERR_IDENTITY_UNAVAILABLE with the reason, its cause's fix and the cause by name", () => {
    const error =
      'pool identity could not be made: the secret in /d/identity.secret cannot be used: it cannot be created: ENOSPC: no space left on device, write';
    const err = identityUnavailable({ ok: false, error, cause: 'disk-refused', nodeUuid: null, publicKey: null });
    assert.equal(err.code, 'HUB_ERR_IDENTITY_UNAVAILABLE');
    assert.equal(err.status, 503);
    assert.equal(err.message, `this Hub's pool identity cannot be used: ${error}. Fix: ${identityFix('disk-refused')}`);
    assert.equal(err.toBody().error.identityCause, 'disk-refused');
  });
});
