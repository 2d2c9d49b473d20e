import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HubError } from '../errors.js';
import { failureCode, identityFailureCause, type IdentityFailureCause, type IdentityFailureStage } from './identity-failure-cause.js';

describe('identityFailureCause', () => {
  const cases: readonly { stage: IdentityFailureStage; code: string | null; cause: IdentityFailureCause }[] = [
    // The disk refusing, at whatever step it happened.
    { stage: 'secret-unreadable', code: 'ENOSPC', cause: 'disk-refused' },
    { stage: 'secret-unreadable', code: 'EDQUOT', cause: 'disk-refused' },
    { stage: 'secret-unreadable', code: 'EROFS', cause: 'disk-refused' },
    { stage: 'secret-unreadable', code: 'EIO', cause: 'disk-refused' },
    { stage: 'other', code: 'SQLITE_FULL', cause: 'disk-refused' },
    { stage: 'other', code: 'SQLITE_IOERR', cause: 'disk-refused' },
    { stage: 'other', code: 'SQLITE_IOERR_SHMSIZE', cause: 'disk-refused' },
    { stage: 'other', code: 'SQLITE_READONLY', cause: 'disk-refused' },
    { stage: 'other', code: 'SQLITE_READONLY_DBMOVED', cause: 'disk-refused' },
    { stage: 'open-key', code: 'EIO', cause: 'disk-refused' },
    // Everything else keeps the step's own cause.
    { stage: 'secret-unreadable', code: 'EISDIR', cause: 'secret-unreadable' },
    { stage: 'secret-unreadable', code: 'EACCES', cause: 'secret-unreadable' },
    { stage: 'secret-unreadable', code: 'ENOENT', cause: 'secret-unreadable' },
    { stage: 'secret-invalid', code: null, cause: 'secret-invalid' },
    { stage: 'open-key', code: null, cause: 'key-unopenable' },
    { stage: 'open-key', code: 'ENOENT', cause: 'key-unopenable' },
    { stage: 'other', code: 'SQLITE_BUSY', cause: 'other' },
    { stage: 'other', code: 'SQLITE_CONSTRAINT_PRIMARYKEY', cause: 'other' },
    { stage: 'other', code: null, cause: 'other' },
  ];
  for (const c of cases) {
    it(`reads ${c.code ?? 'no code'} at ${c.stage} as ${c.cause}`, () => assert.equal(identityFailureCause(c.stage, c.code), c.cause));
  }
});

describe('failureCode', () => {
  const errno = (code: string) => Object.assign(new Error(`${code}: failed`), { code });
  const cases: readonly { name: string; err: unknown; code: string | null }[] = [
    { name: 'an errno error', err: errno('ENOSPC'), code: 'ENOSPC' },
    { name: 'an error wrapping one', err: new Error('it cannot be created', { cause: errno('EROFS') }), code: 'EROFS' },
    {
      name: "hub.db's refusal as the store answers it, under its own HUB_ERR code",
      err: new HubError('HUB_ERR_STORE_UNAVAILABLE', 'not writable right now', {
        cause: Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }),
      }),
      code: 'SQLITE_FULL',
    },
    { name: 'an error with no code', err: new Error('the file is empty'), code: null },
    { name: 'something thrown that is not an error', err: 'ENOSPC', code: null },
  ];
  for (const c of cases) it(`finds ${c.code ?? 'nothing'} in ${c.name}`, () => assert.equal(failureCode(c.err), c.code));
});
