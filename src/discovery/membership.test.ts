import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { membershipOf, tailnetToAsk } from './membership.js';
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
