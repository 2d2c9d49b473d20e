import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MEMBERSHIP_LIST_TTL_MS, MEMBERSHIP_MISS_REFETCH_MS, MembershipCache, membershipOf, tailnetToAsk } from './membership.js';
import { ManualClock } from '../util/clock.js';
import { mapBounded } from './probe-pool.js';

const device = (nodeFqdn: string) => ({ nodeFqdn, hostName: null, os: null, online: null, deviceId: null });

describe('membershipOf', () => {
  it('a name the Admin API lists is a member; one it does not list is not', () => {
    const listed = { ok: true as const, value: [device('hub-b.tail0.ts.net')] };
    assert.deepEqual(membershipOf('hub-b.tail0.ts.net', listed), { kind: 'member' });
    assert.deepEqual(membershipOf('impostor.tail0.ts.net', listed), { kind: 'not-member' });
  });
  it('an Admin API that could not answer gives no verdict (the request goes on with a warning)', () => {
    assert.deepEqual(membershipOf('hub-b.tail0.ts.net', { ok: false, error: 'ECONNREFUSED' }), { kind: 'unknown', error: 'ECONNREFUSED' });
  });
});

describe('tailnetToAsk', () => {
  it('the tailnet the daemon reports; "-" when only the stand-ins name one; none when joined to none', () => {
    assert.equal(tailnetToAsk('operator@example.com', 'tail0.ts.net'), 'operator@example.com');
    assert.equal(tailnetToAsk(null, 'tail0.ts.net'), '-');
    assert.equal(tailnetToAsk(null, null), null);
  });
});

describe('mapBounded', () => {
  it('never has more than the limit in flight, and keeps the input order', async () => {
    let inFlight = 0;
    let most = 0;
    const results = await mapBounded([5, 1, 4, 2, 3, 0, 6], 3, async (n) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      await new Promise((r) => setImmediate(r));
      inFlight -= 1;
      return n * 10;
    });
    assert.deepEqual(results, [50, 10, 40, 20, 30, 0, 60]);
    assert.equal(most, 3);
  });
  it('an empty list runs nothing', async () => {
    assert.deepEqual(await mapBounded([], 4, async () => assert.fail('no task')), []);
  });
});

describe('MembershipCache', () => {
  function counted(names: string[]) {
    const calls = { n: 0 };
    const listed = [...names];
    return {
      calls,
      listed,
      fetch: async () => {
        calls.n += 1;
        return { ok: true as const, value: listed.map(device) };
      },
    };
  }

  it('answers from one list for 30 s; a flood of unknown names costs one fetch per 10 s', async () => {
    const clock = new ManualClock();
    const api = counted(['hub-b.tail0.ts.net']);
    const cache = new MembershipCache(api.fetch, () => clock.nowMs());
    assert.deepEqual(await cache.check('hub-b.tail0.ts.net'), { kind: 'member' });
    for (let i = 0; i < 50; i += 1) assert.deepEqual(await cache.check(`made-up-${i}.tail0.ts.net`), { kind: 'not-member' });
    assert.equal(api.calls.n, 1);
    clock.advance(MEMBERSHIP_MISS_REFETCH_MS);
    await cache.check('made-up-x.tail0.ts.net');
    assert.equal(api.calls.n, 2);
  });

  it('a device added since the last fetch is found once the list is old enough to refetch on a miss', async () => {
    const clock = new ManualClock();
    const api = counted([]);
    const cache = new MembershipCache(api.fetch, () => clock.nowMs());
    assert.deepEqual(await cache.check('new.tail0.ts.net'), { kind: 'not-member' });
    api.listed.push('new.tail0.ts.net');
    clock.advance(MEMBERSHIP_MISS_REFETCH_MS);
    assert.deepEqual(await cache.check('new.tail0.ts.net'), { kind: 'member' });
    clock.advance(MEMBERSHIP_LIST_TTL_MS);
    await cache.check('new.tail0.ts.net');
    assert.equal(api.calls.n, 3, 'a member is re-checked once the list expires');
  });

  it('a failed fetch answers unknown for 10 s, then is asked again; a success ends it; no tailnet gives no verdict', async () => {
    const clock = new ManualClock();
    let calls = 0;
    let up = false;
    const flaky = new MembershipCache(
      async () => {
        calls += 1;
        return up ? { ok: true as const, value: [device('a.tail0.ts.net')] } : { ok: false as const, error: 'HTTP 503' };
      },
      () => clock.nowMs(),
    );
    assert.deepEqual(await flaky.check('made-up.tail0.ts.net'), { kind: 'unknown', error: 'HTTP 503' });
    for (let i = 0; i < 20; i += 1)
      assert.deepEqual(await flaky.check(`made-up-${i}.tail0.ts.net`), { kind: 'unknown', error: 'HTTP 503', remembered: true }, 'the failure answered again');
    assert.equal(calls, 1, 'one call for the whole flood');
    clock.advance(MEMBERSHIP_MISS_REFETCH_MS - 1);
    await flaky.check('a.tail0.ts.net');
    assert.equal(calls, 1);
    up = true;
    clock.advance(1);
    assert.deepEqual(await flaky.check('a.tail0.ts.net'), { kind: 'member' });
    assert.equal(calls, 2);
    assert.equal(
      await new MembershipCache(
        async () => null,
        () => 0,
      ).check('a.tail0.ts.net'),
      null,
    );
  });

  const afterStepBack: { what: string; listed: boolean; name: string; first: string }[] = [
    { what: 'a listed member', listed: true, name: 'hub-b.tail0.ts.net', first: 'member' },
    { what: 'a name the list lacks', listed: true, name: 'made-up.tail0.ts.net', first: 'not-member' },
    { what: 'a failed fetch', listed: false, name: 'hub-b.tail0.ts.net', first: 'unknown' },
  ];
  for (const row of afterStepBack)
    it(`after the wall clock is set back, answers ${row.what} by asking the Admin API again, not from memory until the clock catches up`, async () => {
      const clock = new ManualClock();
      let calls = 0;
      const cache = new MembershipCache(
        async () => {
          calls += 1;
          return row.listed ? { ok: true as const, value: [device('hub-b.tail0.ts.net')] } : { ok: false as const, error: 'HTTP 503' };
        },
        () => clock.nowMs(),
      );
      assert.equal((await cache.check(row.name))?.kind, row.first);
      clock.advance(-2 * 3_600_000);
      await cache.check(row.name);
      assert.equal(calls, 2);
    });
});
