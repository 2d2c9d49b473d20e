import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CLOCK_STEP_TOLERANCE_MS, ManualClock } from '../util/clock.js';
import { localEngine, peerNode } from '../placement/steps/candidate-fixtures.js';
import {
  candidateKey,
  engineModelKey,
  FIRST_WITHHOLD_MS,
  MAX_KEYS,
  MAX_WITHHOLD_MS,
  STRIKE_WINDOW_MS,
  WithholdBook,
  withheldFacts,
  withheldTest,
} from './withhold-book.js';

describe('WithholdBook', () => {
  it('withholds after two strikes within five minutes, for 60 s', () => {
    const clock = new ManualClock();
    const book = new WithholdBook(clock);
    assert.equal(book.strike('k', 'degenerate-output'), false);
    assert.equal(book.isWithheld('k'), false);
    clock.advance(1_000);
    assert.equal(book.strike('k', 'degenerate-output'), true);
    assert.equal(book.isWithheld('k'), true);
    clock.advance(FIRST_WITHHOLD_MS);
    assert.equal(book.isWithheld('k'), false, 'offered again after 60 s');
  });

  it('does not withhold for two strikes further apart than five minutes', () => {
    const clock = new ManualClock();
    const book = new WithholdBook(clock);
    book.strike('k', 'r');
    clock.advance(STRIKE_WINDOW_MS);
    assert.equal(book.strike('k', 'r'), false);
  });

  it('doubles the withhold each time the re-probe fails, up to 15 minutes', () => {
    const clock = new ManualClock();
    const book = new WithholdBook(clock);
    const lengthNow = () => Date.parse(book.withheld()[0]!.until) - clock.nowMs();
    book.strike('k', 'r');
    book.strike('k', 'r');
    const lengths = [lengthNow()];
    for (let i = 0; i < 5; i++) {
      clock.advance(lengths[lengths.length - 1]!);
      assert.equal(book.isWithheld('k'), false, 'offered again when the withhold ends');
      assert.equal(book.strike('k', 'r'), true, 'one failed re-probe withholds again');
      lengths.push(lengthNow());
    }
    assert.deepEqual(lengths, [FIRST_WITHHOLD_MS, 120_000, 240_000, 480_000, MAX_WITHHOLD_MS, MAX_WITHHOLD_MS]);
  });

  it('ends a withhold with one clean answer and starts counting afresh', () => {
    const clock = new ManualClock();
    const book = new WithholdBook(clock);
    book.strike('k', 'r');
    book.strike('k', 'r');
    assert.equal(book.clear('k'), true);
    assert.equal(book.isWithheld('k'), false);
    assert.equal(book.strike('k', 'r'), false, 'one strike after a clean answer is not enough');
  });

  it('keeps a withhold that an answer begun before the last strike would end', () => {
    const book = new WithholdBook(new ManualClock());
    const longStream = book.mark();
    book.strike('k', 'HTTP 500');
    book.strike('k', 'HTTP 500');
    assert.equal(book.clear('k', longStream), false, 'the stream began before the engine failed');
    assert.equal(book.isWithheld('k'), true);
    const reprobe = book.mark();
    assert.equal(book.clear('k', reprobe), true, 'an answer begun after the strikes ends it');
    assert.equal(book.isWithheld('k'), false);
  });
  it('counts a strike during a withhold as newer than the answers begun before it', () => {
    const book = new WithholdBook(new ManualClock());
    book.strike('k', 'r');
    book.strike('k', 'r');
    const begun = book.mark();
    book.strike('k', 'r');
    assert.equal(book.clear('k', begun), false);
    assert.equal(book.isWithheld('k'), true);
  });
  it('judges each key by its own strikes: a strike on another key does not make an answer stale', () => {
    const book = new WithholdBook(new ManualClock());
    book.strike('k', 'r');
    book.strike('k', 'r');
    const begun = book.mark();
    book.strike('other', 'r');
    assert.equal(book.clear('k', begun), true);
  });
  it('ends a withhold at once on evidence of the engine now (no mark: the model resident)', () => {
    const book = new WithholdBook(new ManualClock());
    book.strike('k', 'r');
    book.strike('k', 'r');
    assert.equal(book.clear('k'), true);
  });

  it('lists what is withheld now, with when it ends and why', () => {
    const clock = new ManualClock();
    const book = new WithholdBook(clock);
    book.strike('a', 'truncated-upstream');
    book.strike('a', 'truncated-upstream');
    book.strike('b', 'r');
    assert.deepEqual(
      book.withheld().map((w) => [w.key, w.reason]),
      [['a', 'truncated-upstream']],
    );
  });

  describe('strikes that land while the key is already withheld', () => {
    // Requests sent before the withhold began still come back and fault. The withhold they find
    // was already decided: they must neither lengthen it nor count towards the next one.
    const cases: readonly { name: string; lateStrikesAtMs: readonly number[] }[] = [
      { name: 'one strike in the same millisecond the withhold began', lateStrikesAtMs: [0] },
      { name: 'one strike half-way through', lateStrikesAtMs: [FIRST_WITHHOLD_MS / 2] },
      { name: 'one strike in its last millisecond', lateStrikesAtMs: [FIRST_WITHHOLD_MS - 1] },
      { name: 'three strikes spread through it', lateStrikesAtMs: [1, 20_000, 40_000] },
    ];
    for (const c of cases) {
      it(`${c.name}: the withhold still ends on time, and a failed re-probe then withholds for 120 s`, () => {
        const clock = new ManualClock();
        const book = new WithholdBook(clock);
        book.strike('k', 'r');
        assert.equal(book.strike('k', 'r'), true);
        const startMs = clock.nowMs();
        const until = book.withheldEntry('k')!.until;
        for (const atMs of c.lateStrikesAtMs) {
          clock.advance(startMs + atMs - clock.nowMs());
          assert.equal(book.strike('k', 'r'), false, 'a late strike starts no withhold');
          assert.equal(book.withheldEntry('k')?.until, until, 'nor moves the end of this one');
        }
        clock.advance(startMs + FIRST_WITHHOLD_MS - clock.nowMs());
        assert.equal(book.isWithheld('k'), false, 'offered again when the first withhold ends');
        assert.equal(book.strike('k', 'r'), true);
        assert.equal(Date.parse(book.withheldEntry('k')!.until) - clock.nowMs(), 2 * FIRST_WITHHOLD_MS, 'the next one doubles once, not once per late strike');
      });
    }
  });

  it('says whether a clean answer ended a withhold: no for a key never struck or struck once, yes for a withheld one', () => {
    const book = new WithholdBook(new ManualClock());
    assert.equal(book.clear('never'), false);
    book.strike('once', 'r');
    assert.equal(book.clear('once'), false);
    book.strike('twice', 'r');
    book.strike('twice', 'r');
    assert.equal(book.clear('twice'), true);
  });

  it('reports a withhold in force until its last millisecond, and nothing from the moment it ends', () => {
    const clock = new ManualClock();
    const book = new WithholdBook(clock);
    assert.equal(book.withheldEntry('never'), null);
    book.strike('k', 'degenerate-output');
    book.strike('k', 'degenerate-output');
    clock.advance(FIRST_WITHHOLD_MS - 1);
    assert.deepEqual(book.withheldEntry('k'), { key: 'k', until: new Date(clock.nowMs() + 1).toISOString(), reason: 'degenerate-output' });
    assert.equal(book.withheld().length, 1);
    clock.advance(1);
    assert.equal(book.withheldEntry('k'), null);
    assert.deepEqual(book.withheld(), []);
  });

  describe('after the wall clock is set back', () => {
    // What was recorded before the step lies ahead of the clock; elapsedMs takes it as long past.
    const HOUR = 60 * 60_000;
    const withheldThenStep = (stepMs: number) => {
      const clock = new ManualClock();
      const book = new WithholdBook(clock);
      book.strike('k', 'r');
      book.strike('k', 'r');
      clock.advance(stepMs);
      return { clock, book };
    };
    const cases: { name: string; stepMs: number }[] = [
      { name: 'a two-hour step', stepMs: -2 * HOUR },
      { name: 'a step of just over a second', stepMs: -(CLOCK_STEP_TOLERANCE_MS + 1) },
    ];
    for (const c of cases) {
      it(`${c.name} lifts a 60 s withhold: the key is offered again and listed as withheld nowhere`, () => {
        const { book } = withheldThenStep(c.stepMs);
        assert.equal(book.isWithheld('k'), false);
        assert.equal(book.withheldEntry('k'), null);
        assert.deepEqual(book.withheld(), []);
      });
    }
    it('a step of up to a second counts as no time passed: the withhold stays in force', () => {
      const { book } = withheldThenStep(-CLOCK_STEP_TOLERANCE_MS);
      assert.equal(book.isWithheld('k'), true);
    });
    it('a failed re-probe after the step withholds again for twice as long, as after any withhold', () => {
      const { clock, book } = withheldThenStep(-2 * HOUR);
      assert.equal(book.strike('k', 'r'), true);
      assert.equal(Date.parse(book.withheldEntry('k')!.until) - clock.nowMs(), 2 * FIRST_WITHHOLD_MS);
    });
    it('a strike from before the step no longer counts toward a withhold', () => {
      const clock = new ManualClock();
      const book = new WithholdBook(clock);
      book.strike('k', 'r');
      clock.advance(-60_000);
      assert.equal(book.strike('k', 'r'), false);
      assert.equal(book.isWithheld('k'), false);
    });
  });

  it(`holds at most ${MAX_KEYS} keys, forgetting the oldest to make room`, () => {
    const book = new WithholdBook(new ManualClock());
    book.strike('oldest', 'r');
    book.strike('oldest', 'r');
    for (let i = 1; i < MAX_KEYS; i++) book.strike(`k${i}`, 'r');
    assert.equal(book.isWithheld('oldest'), true, `${MAX_KEYS} keys fit`);
    book.strike('one-more', 'r');
    assert.equal(book.isWithheld('oldest'), false, 'the oldest key made room for a new one');
  });
});

describe('engineModelKey', () => {
  it('names the node, the engine there and the model', () => assert.equal(engineModelKey('local', 'ollama', 'qwen3:8b'), 'local|ollama|qwen3:8b'));
  it("names a peer's engine as * (this Hub cannot see which one served)", () =>
    assert.equal(engineModelKey('core-2.tail0.ts.net', null, 'qwen3:8b'), 'core-2.tail0.ts.net|*|qwen3:8b'));
});

describe('withheldFacts and withheldTest: what placement reads of the book', () => {
  const peer = peerNode('core-2');
  const local = localEngine('ollama');
  const other = peerNode('core-3');
  const withheldBook = () => {
    const clock = new ManualClock();
    const book = new WithholdBook(clock);
    // Keyed as the walk strikes them: a local Ollama engine's tagless 'm' is its m:latest.
    for (const key of [engineModelKey(peer.node, null, 'm'), candidateKey(local, 'm')]) {
      book.strike(key, 'degenerate-output');
      book.strike(key, 'degenerate-output');
    }
    return { clock, book };
  };

  it('names each withheld candidate, a peer under its node and a local engine under its engine, with until when and why', () => {
    const { clock, book } = withheldBook();
    const until = new Date(clock.nowMs() + FIRST_WITHHOLD_MS).toISOString();
    assert.deepEqual(
      [...withheldFacts([peer, local, other], 'm', book)],
      [
        [peer.id, { until, reason: 'degenerate-output' }],
        [local.id, { until, reason: 'degenerate-output' }],
      ],
    );
    assert.deepEqual([peer, local, other].map(withheldTest(book, 'm')), [true, true, false]);
  });

  it('withholds nobody for another model', () => {
    const { book } = withheldBook();
    assert.equal(withheldFacts([peer, local], 'other-model', book).size, 0);
    assert.deepEqual([peer, local].map(withheldTest(book, 'other-model')), [false, false]);
  });

  it('withholds nobody from an empty book, from a book holding only strikes, or once a withhold has run out', () => {
    const clock = new ManualClock();
    const book = new WithholdBook(clock);
    assert.equal(book.isEmpty, true);
    assert.equal(withheldFacts([peer], 'm', book).size, 0);
    book.strike(engineModelKey(peer.node, null, 'm'), 'degenerate-output');
    assert.equal(book.isEmpty, false);
    assert.equal(withheldFacts([peer], 'm', book).size, 0);
    book.strike(engineModelKey(peer.node, null, 'm'), 'degenerate-output');
    assert.equal(withheldTest(book, 'm')(peer), true);
    clock.advance(FIRST_WITHHOLD_MS);
    assert.equal(withheldFacts([peer], 'm', book).size, 0);
    assert.equal(withheldTest(book, 'm')(peer), false);
  });

  it('a test taken from an empty book sees a withhold that starts after it was taken', () => {
    const clock = new ManualClock();
    const book = new WithholdBook(clock);
    const test = withheldTest(book, 'm');
    book.strike(engineModelKey(peer.node, null, 'm'), 'r');
    book.strike(engineModelKey(peer.node, null, 'm'), 'r');
    assert.equal(test(peer), true);
  });
});
