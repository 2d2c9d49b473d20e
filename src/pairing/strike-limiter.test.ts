import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CLOCK_STEP_TOLERANCE_MS, ManualClock } from '../util/clock.js';
import { pairingSourceKeys, StrikeLimiter } from './strike-limiter.js';

const MIN = 60_000;

function setup(maxKeys?: number): { clock: ManualClock; limiter: StrikeLimiter } {
  const clock = new ManualClock();
  return { clock, limiter: new StrikeLimiter({ clock, maxKeys }) };
}

describe('StrikeLimiter', () => {
  it('one strike does not block', () => {
    const { limiter } = setup();
    limiter.strike(['a']);
    assert.deepEqual(limiter.check(['a']), { allowed: true });
  });

  it('two strikes inside five minutes block for 60 s, then the key is allowed again', () => {
    const { clock, limiter } = setup();
    limiter.strike(['a']);
    clock.advance(5 * MIN - 1);
    limiter.strike(['a']);
    assert.deepEqual(limiter.check(['a']), { allowed: false, retryAfterMs: 60_000 });
    clock.advance(59_999);
    assert.deepEqual(limiter.check(['a']), { allowed: false, retryAfterMs: 1 });
    clock.advance(1);
    assert.deepEqual(limiter.check(['a']), { allowed: true });
  });

  it('two strikes five minutes apart do not block', () => {
    const { clock, limiter } = setup();
    limiter.strike(['a']);
    clock.advance(5 * MIN);
    limiter.strike(['a']);
    assert.deepEqual(limiter.check(['a']), { allowed: true });
  });

  it('each further strike doubles the backoff, capped at 15 minutes', () => {
    const { clock, limiter } = setup();
    limiter.strike(['a']);
    limiter.strike(['a']);
    const seen: number[] = [];
    for (let i = 0; i < 6; i += 1) {
      const check = limiter.check(['a']);
      assert.equal(check.allowed, false);
      if (!check.allowed) {
        seen.push(check.retryAfterMs);
        clock.advance(check.retryAfterMs); // let the block run out, then fail the re-probe
      }
      limiter.strike(['a']);
    }
    assert.deepEqual(
      seen,
      [1, 2, 4, 8, 15, 15].map((m) => m * MIN),
    );
  });

  it('a strike while still blocked also doubles, counted from now', () => {
    const { clock, limiter } = setup();
    limiter.strike(['a']);
    limiter.strike(['a']);
    clock.advance(10_000);
    limiter.strike(['a']);
    assert.deepEqual(limiter.check(['a']), { allowed: false, retryAfterMs: 2 * MIN });
  });

  it('a key quiet for five minutes after its block ends starts over at 60 s', () => {
    const { clock, limiter } = setup();
    limiter.strike(['a']);
    limiter.strike(['a']);
    clock.advance(MIN + 5 * MIN);
    limiter.strike(['a']);
    assert.deepEqual(limiter.check(['a']), { allowed: true }, 'one fresh strike does not block');
    limiter.strike(['a']);
    assert.deepEqual(limiter.check(['a']), { allowed: false, retryAfterMs: MIN });
  });

  it('blocks when any key is blocked, reporting the longest wait', () => {
    const { clock, limiter } = setup();
    limiter.strike(['fqdn:x', 'ip:1']);
    limiter.strike(['fqdn:x', 'ip:1']);
    clock.advance(MIN);
    limiter.strike(['fqdn:y', 'ip:1']); // ip:1 escalates to 2 min; fqdn:y has one strike
    assert.deepEqual(limiter.check(['fqdn:other', 'ip:1']), { allowed: false, retryAfterMs: 2 * MIN });
    assert.deepEqual(limiter.check(['fqdn:y', 'ip:2']), { allowed: true });
    assert.deepEqual(limiter.check(['fqdn:x']), { allowed: true }, 'fqdn:x served its minute');
    assert.deepEqual(limiter.check([]), { allowed: true });
  });

  it('a key repeated in one strike counts once', () => {
    const { limiter } = setup();
    limiter.strike(['a', 'a']);
    assert.deepEqual(limiter.check(['a']), { allowed: true });
  });

  it('clear forgets a key', () => {
    const { limiter } = setup();
    limiter.strike(['a', 'b']);
    limiter.strike(['a', 'b']);
    limiter.clear(['a']);
    assert.deepEqual(limiter.check(['a']), { allowed: true });
    assert.equal(limiter.check(['b']).allowed, false);
  });

  it('tracks at most maxKeys, evicting the least recently struck', () => {
    const { limiter } = setup(3);
    limiter.strike(['keep']);
    limiter.strike(['keep']);
    for (const key of ['k1', 'k2']) limiter.strike([key]);
    limiter.strike(['keep']); // touched again: now the most recent
    for (const key of ['k3', 'k4']) limiter.strike([key]);
    assert.equal(limiter.size, 3);
    assert.equal(limiter.check(['keep']).allowed, false);
  });

  it('the default cap holds under a flood of distinct keys', () => {
    const { limiter } = setup();
    for (let i = 0; i < 12_000; i += 1) limiter.strike([`fqdn:n${i}.ts.net`]);
    assert.equal(limiter.size, 10_000);
  });
});

describe('StrikeLimiter after the wall clock is set back', () => {
  // What was recorded before the step lies ahead of the clock; elapsedMs takes it as long past.
  const HOUR = 60 * MIN;
  const cases: { name: string; before: number; stepMs: number; after: number; expected: ReturnType<StrikeLimiter['check']> }[] = [
    { name: 'a 60 s block lifts at once, rather than lasting as long as the step', before: 2, stepMs: -2 * HOUR, after: 0, expected: { allowed: true } },
    {
      name: 'a block lifts after a step of just over a second: no retry-after is longer than the block',
      before: 2,
      stepMs: -(CLOCK_STEP_TOLERANCE_MS + 1),
      after: 0,
      expected: { allowed: true },
    },
    {
      name: 'a step of up to a second counts as no time passed: the block holds its 60 s',
      before: 2,
      stepMs: -CLOCK_STEP_TOLERANCE_MS,
      after: 0,
      expected: { allowed: false, retryAfterMs: MIN },
    },
    { name: 'a strike from before the step no longer counts toward a block', before: 1, stepMs: -MIN, after: 1, expected: { allowed: true } },
    {
      name: 'a block from before the step is forgotten: two new strikes block for 60 s, not double',
      before: 2,
      stepMs: -2 * HOUR,
      after: 2,
      expected: { allowed: false, retryAfterMs: MIN },
    },
  ];
  for (const c of cases)
    it(c.name, () => {
      const { clock, limiter } = setup();
      for (let i = 0; i < c.before; i += 1) limiter.strike(['a']);
      clock.advance(c.stepMs);
      for (let i = 0; i < c.after; i += 1) limiter.strike(['a']);
      assert.deepEqual(limiter.check(['a']), c.expected);
    });
});

describe('StrikeLimiter: strikes older than the window', () => {
  // With three strikes to block, a key struck at 0, w/2 and w is never quiet for a whole window
  // (so it is not forgotten), but its first strike is a full window old by the third: the window
  // is strictly shorter than w, so only two strikes count.
  const cases: { name: string; gapsMs: number[]; blocked: boolean }[] = [
    { name: 'a strike exactly one window old no longer counts', gapsMs: [2.5 * MIN, 2.5 * MIN], blocked: false },
    { name: 'a strike older than the window no longer counts', gapsMs: [3 * MIN, 3 * MIN], blocked: false },
    { name: 'three strikes inside one window block', gapsMs: [2.5 * MIN, 2.5 * MIN - 1], blocked: true },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const clock = new ManualClock();
      const limiter = new StrikeLimiter({ clock, strikesToBlock: 3 });
      limiter.strike(['a']);
      for (const gap of c.gapsMs) {
        clock.advance(gap);
        limiter.strike(['a']);
      }
      assert.equal(limiter.check(['a']).allowed, !c.blocked);
    });
  }
});

describe('pairingSourceKeys', () => {
  const cases: { name: string; fqdn: string; ip: string | null; expected: string[] }[] = [
    { name: 'name and address', fqdn: 'hub-a.tail9.ts.net', ip: '100.70.1.2', expected: ['fqdn:hub-a.tail9.ts.net', 'ip:100.70.1.2'] },
    { name: 'no trustworthy address: the name alone', fqdn: 'hub-a.tail9.ts.net', ip: null, expected: ['fqdn:hub-a.tail9.ts.net'] },
    { name: 'an empty address counts as none', fqdn: 'hub-a.tail9.ts.net', ip: ' ', expected: ['fqdn:hub-a.tail9.ts.net'] },
    { name: 'name spellings share a key', fqdn: ' HUB-A.tail9.ts.net. ', ip: null, expected: ['fqdn:hub-a.tail9.ts.net'] },
    { name: 'an IPv4-mapped address shares the IPv4 key', fqdn: 'h.ts.net', ip: '::FFFF:192.168.1.9', expected: ['fqdn:h.ts.net', 'ip:192.168.1.9'] },
    { name: 'IPv6 is lower-cased', fqdn: 'h.ts.net', ip: 'FD7A:115C:A1E0::9', expected: ['fqdn:h.ts.net', 'ip:fd7a:115c:a1e0::9'] },
    { name: 'an address with spaces around it shares the bare key', fqdn: 'h.ts.net', ip: ' 10.0.0.7 ', expected: ['fqdn:h.ts.net', 'ip:10.0.0.7'] },
    {
      name: 'an IPv4-mapped address with multi-digit octets maps whole',
      fqdn: 'h.ts.net',
      ip: '::ffff:10.20.30.40',
      expected: ['fqdn:h.ts.net', 'ip:10.20.30.40'],
    },
    {
      name: 'an IPv6 address that merely contains ::ffff: is its own key',
      fqdn: 'h.ts.net',
      ip: '1::ffff:10.0.0.7',
      expected: ['fqdn:h.ts.net', 'ip:1::ffff:10.0.0.7'],
    },
    {
      name: 'a mapped address with a zone is not the IPv4 one',
      fqdn: 'h.ts.net',
      ip: '::ffff:10.0.0.7%eth0',
      expected: ['fqdn:h.ts.net', 'ip:::ffff:10.0.0.7%eth0'],
    },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(pairingSourceKeys(c.fqdn, c.ip), c.expected));
});
