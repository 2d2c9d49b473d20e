import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../util/clock.js';
import { PairingPin, PIN_DIGITS, PIN_MAX_WRONG_GUESSES, PIN_TTL_MS } from './pairing-pin.js';

function fixedPins(...pins: string[]): () => string {
  return () => pins.shift() ?? assert.fail('no more test PINs');
}

function setup(...pins: string[]): { clock: ManualClock; pin: PairingPin } {
  const clock = new ManualClock();
  return { clock, pin: new PairingPin({ clock, randomDigits: pins.length > 0 ? fixedPins(...pins) : undefined }) };
}

describe('PairingPin with no PIN outstanding', () => {
  const states: { name: string; arrange: (clock: ManualClock, pin: PairingPin) => void }[] = [
    { name: 'none was minted', arrange: () => {} },
    {
      name: 'it expired',
      arrange: (clock, pin) => {
        pin.mint();
        clock.advance(PIN_TTL_MS);
      },
    },
    { name: 'it was spent', arrange: (_clock, pin) => void pin.verify(pin.mint().pin) },
    {
      // Its ten minutes cannot be told from the wall clock any more: elapsedMs takes it as long past.
      name: 'the wall clock was set back two hours after it was minted',
      arrange: (clock, pin) => {
        pin.mint();
        clock.advance(-2 * 60 * 60_000);
        clock.advance(30 * 60_000);
      },
    },
  ];
  for (const state of states) {
    it(`check refuses the right-looking digits when ${state.name}`, () => {
      const { clock, pin } = setup('123456', '123456');
      state.arrange(clock, pin);
      assert.equal(pin.check('123456'), false);
    });
    it(`consume reports there was nothing to spend when ${state.name}`, () => {
      const { clock, pin } = setup('123456', '123456');
      state.arrange(clock, pin);
      assert.equal(pin.consume(), false);
    });
    it(`status reports no PIN and no time left when ${state.name}`, () => {
      const { clock, pin } = setup('123456', '123456');
      state.arrange(clock, pin);
      assert.deepEqual(pin.status(), { active: false, expiresAt: null, expiresInMs: null });
    });
  }
});

describe('PairingPin', () => {
  it('the limits are six digits, ten minutes and five wrong guesses', () => {
    assert.equal(PIN_DIGITS, 6);
    assert.equal(PIN_TTL_MS, 600_000);
    assert.equal(PIN_MAX_WRONG_GUESSES, 5);
  });

  it('mints six digits from the crypto source, zero-padded, expiring in ten minutes', () => {
    const { clock, pin } = setup();
    for (let i = 0; i < 50; i += 1) {
      const minted = pin.mint();
      assert.match(minted.pin, /^\d{6}$/);
      assert.equal(minted.expiresAt, new Date(clock.nowMs() + PIN_TTL_MS).toISOString());
    }
  });

  it('keeps leading zeros', () => {
    const { pin } = setup('000042');
    assert.equal(pin.mint().pin, '000042');
    assert.equal(pin.verify('000042'), true);
  });

  it('refuses a random source that does not give six digits', () => {
    for (const bad of ['12345', '1234567', '12a456', '']) {
      const { pin } = setup(bad);
      assert.throws(() => pin.mint(), /6 digits/);
    }
  });

  it('accepts the right digits exactly once', () => {
    const { pin } = setup('123456');
    pin.mint();
    assert.equal(pin.verify('123456'), true);
    assert.equal(pin.verify('123456'), false);
    assert.equal(pin.status().active, false);
  });

  it('expires at ten minutes: valid one millisecond before, refused at the mark', () => {
    const a = setup('111111');
    a.pin.mint();
    a.clock.advance(PIN_TTL_MS - 1);
    assert.equal(a.pin.verify('111111'), true);

    const b = setup('222222');
    b.pin.mint();
    b.clock.advance(PIN_TTL_MS);
    assert.equal(b.pin.status().active, false);
    assert.equal(b.pin.verify('222222'), false);
  });

  it('five wrong guesses destroy it: the right PIN is refused afterwards', () => {
    const { pin } = setup('123456');
    pin.mint();
    for (let i = 0; i < PIN_MAX_WRONG_GUESSES; i += 1) assert.equal(pin.verify(`00000${i}`), false);
    assert.equal(pin.status().active, false);
    assert.equal(pin.verify('123456'), false);
  });

  it('four wrong guesses leave it usable', () => {
    const { pin } = setup('123456');
    pin.mint();
    for (let i = 0; i < PIN_MAX_WRONG_GUESSES - 1; i += 1) pin.verify('999999');
    assert.equal(pin.verify('123456'), true);
  });

  it('malformed candidates are wrong guesses and count toward the five', () => {
    const { pin } = setup('123456');
    pin.mint();
    const junk: unknown[] = [123456, '12345', '1234567', ' 123456', '12345a', null];
    for (const candidate of junk.slice(0, PIN_MAX_WRONG_GUESSES)) assert.equal(pin.verify(candidate), false);
    assert.equal(pin.verify('123456'), false);
  });

  it('a new mint replaces the old PIN and resets the guess count', () => {
    const { pin } = setup('111111', '222222');
    pin.mint();
    for (let i = 0; i < PIN_MAX_WRONG_GUESSES - 1; i += 1) pin.verify('999999');
    pin.mint();
    assert.equal(pin.verify('111111'), false);
    assert.equal(pin.verify('222222'), true);
  });

  it('with nothing outstanding every candidate is refused, the same false as a wrong guess', () => {
    const { pin } = setup();
    assert.equal(pin.verify('123456'), false);
    assert.equal(pin.verify(undefined), false);
  });

  it('status reports active, expiry and the time left by the Hub clock, never the digits', () => {
    const { clock, pin } = setup('987654');
    assert.deepEqual(pin.status(), { active: false, expiresAt: null, expiresInMs: null });
    const minted = pin.mint();
    const status = pin.status();
    assert.deepEqual(status, { active: true, expiresAt: new Date(clock.nowMs() + PIN_TTL_MS).toISOString(), expiresInMs: PIN_TTL_MS });
    assert.equal(status.expiresAt, minted.expiresAt);
    assert.ok(!JSON.stringify(status).includes('987654'));
    clock.advance(PIN_TTL_MS - 1_500);
    assert.equal(pin.status().expiresInMs, 1_500);
    clock.advance(1_500);
    assert.deepEqual(pin.status(), { active: false, expiresAt: null, expiresInMs: null });
  });

  it('cancel withdraws an outstanding PIN and says whether there was one', () => {
    const { clock, pin } = setup('123456', '654321');
    assert.equal(pin.cancel(), false);
    pin.mint();
    assert.equal(pin.cancel(), true);
    assert.equal(pin.verify('123456'), false);
    pin.mint();
    clock.advance(PIN_TTL_MS);
    assert.equal(pin.cancel(), false, 'an expired PIN is not outstanding');
  });
});
