import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HubNotRunningError, UsageError } from '../hub-client.js';
import { poolLog } from './pool.js';

/** No Hub is asked: a value the parser refuses is a usage error before any Hub is looked for. */
const refusal = (since: string): Promise<unknown> =>
  poolLog({ dataDir: '/nonexistent/cihub-data-dir', since }).then(
    () => null,
    (err: unknown) => err,
  );

describe('`cihub pool log --since` refusing a value', () => {
  const cases: readonly { what: string; since: string; says: RegExp }[] = [
    { what: 'a time with no zone', since: '2026-11-30T12:00:00', says: /^--since needs a time zone: .*"2026-11-30T12:00:00" has none/ },
    { what: 'an offset typed with a space for its +', since: '2026-11-30T12:00:00 01:00', says: /give 2026-11-30T12:00:00\+01:00\)/ },
    { what: 'not an ISO time', since: 'yesterday', says: /^--since takes an age such as 30s, .* or an ISO 8601 time with a zone, .* not "yesterday"\.$/ },
    { what: 'a time that does not exist', since: '2026-02-30T12:00:00Z', says: /^--since "2026-02-30T12:00:00Z" is not a real time\.$/ },
  ];
  for (const c of cases) {
    it(`words ${c.what} for the flag, with no query-string advice, as a usage error`, async () => {
      const err = await refusal(c.since);
      assert.ok(err instanceof UsageError, String(err));
      assert.match(err.message, c.says);
      assert.doesNotMatch(err.message, /%2B|query string/);
    });
  }
});

describe('`cihub pool log --since` with an age reaching back before 1970', () => {
  it('asks for every row (it goes on to look for the Hub) instead of refusing a date before year 0', async () => {
    const err = await refusal('999999d');
    assert.ok(err instanceof HubNotRunningError, String(err));
  });
});
