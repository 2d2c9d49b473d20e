import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as tick } from 'node:timers/promises';
import { Background, IDLE, REPEAT_LOG_INTERVAL_MS } from './background.js';
import { ManualClock } from './clock.js';
import { createLogger } from './logger.js';

interface Line {
  level: number;
  msg: string;
  task?: string;
  repeatsNotLogged?: number;
}

function rig() {
  const lines: Line[] = [];
  const logger = createLogger('debug', { write: (l: string) => void lines.push(JSON.parse(l) as Line) });
  const clock = new ManualClock();
  return { lines, clock, bg: new Background({ logger, clock }) };
}

const busy = () => Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });

describe('Background', () => {
  it('catches a task that throws or rejects, so the process carries on', async () => {
    const { bg, lines } = rig();
    await bg.settle('sync', () => {
      throw busy();
    });
    await bg.settle('async', async () => Promise.reject(busy()));
    assert.deepEqual(
      lines.map((l) => [l.level, l.task]),
      [
        [40, 'sync'],
        [40, 'async'],
      ],
    );
  });

  it('logs a repeated failure once per interval, then the count of the ones it held back', async () => {
    const { bg, lines, clock } = rig();
    for (let i = 0; i < 100; i += 1) await bg.settle('poll', () => Promise.reject(busy()));
    assert.equal(lines.length, 1, 'a hundred failures of a 1 s tick are one line');
    clock.advance(REPEAT_LOG_INTERVAL_MS);
    await bg.settle('poll', () => Promise.reject(busy()));
    assert.equal(lines.length, 2);
    assert.equal(lines[1]!.repeatsNotLogged, 99);
  });

  it('logs a repeated failure again after the wall clock is set back, rather than holding it back for as long as the step', async () => {
    const { bg, lines, clock } = rig();
    await bg.settle('poll', () => Promise.reject(busy()));
    clock.advance(-2 * 60 * 60_000);
    await bg.settle('poll', () => Promise.reject(busy()));
    assert.equal(lines.length, 2, 'the repeat after the step is logged, with the stamp of the first line lying ahead');
    clock.advance(REPEAT_LOG_INTERVAL_MS - 1);
    await bg.settle('poll', () => Promise.reject(busy()));
    assert.equal(lines.length, 2, 'counted from the line after the step, repeats are held back again');
  });

  it('logs a different failure of the same task at once', async () => {
    const { bg, lines } = rig();
    await bg.settle('poll', () => Promise.reject(busy()));
    await bg.settle('poll', () => Promise.reject(Object.assign(new Error('disk full'), { code: 'SQLITE_FULL' })));
    assert.equal(lines.length, 2);
  });

  it('says once that a failing task succeeds again', async () => {
    const { bg, lines } = rig();
    await bg.settle('poll', () => Promise.reject(busy()));
    await bg.settle('poll', () => undefined);
    await bg.settle('poll', () => undefined);
    assert.deepEqual(
      lines.map((l) => l.level),
      [40, 30],
    );
    assert.match(lines[1]!.msg, /succeeded again/);
  });

  it('takes a run that found nothing to do (IDLE) as no news: the failure stands and its repeats stay held back', async () => {
    const { bg, lines } = rig();
    await bg.settle('export', () => Promise.reject(busy()));
    await bg.settle('export', () => IDLE);
    await bg.settle('export', () => Promise.reject(busy()));
    assert.deepEqual(
      lines.map((l) => l.level),
      [40],
      'no "succeeded again", and the repeat is not a new failure',
    );
  });

  it('never overlaps two runs of a periodic task', async () => {
    const { bg } = rig();
    let running = 0;
    let most = 0;
    let runs = 0;
    let release: () => void = () => {};
    const handle = bg.every('slow', 1, async () => {
      runs += 1;
      running += 1;
      most = Math.max(most, running);
      await new Promise<void>((r) => (release = r));
      running -= 1;
    });
    while (runs === 0) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, 30));
    assert.equal(runs, 1, 'ticks while the first run is pending are skipped');
    release();
    while (runs < 2) await new Promise((r) => setTimeout(r, 5));
    handle.stop();
    release();
    await tick();
    assert.equal(most, 1);
  });

  it('runs a soon task after the caller and what it queued for the same turn (next ticks, promise callbacks)', async () => {
    const { bg, lines } = rig();
    const order: string[] = [];
    let ran = () => {};
    const done = new Promise<void>((r) => (ran = r));
    bg.soon('after the request', () => {
      order.push('task');
      ran();
      throw busy();
    });
    void Promise.resolve().then(() => order.push('promise callback'));
    process.nextTick(() => order.push('next tick'));
    order.push('caller');
    await done;
    assert.deepEqual([order[0], order[3]], ['caller', 'task'], order.join(', '));
    await tick();
    assert.deepEqual(
      lines.map((l) => [l.level, l.task]),
      [[40, 'after the request']],
      'its failure is caught and logged like any task',
    );
  });

  it('runs nothing after close', async () => {
    const { bg } = rig();
    let ran = false;
    bg.soon('asked before close', () => (ran = true));
    bg.close();
    bg.run('late', () => (ran = true));
    bg.soon('soon', () => (ran = true));
    bg.after('later', 1, () => (ran = true));
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(ran, false);
  });
});
