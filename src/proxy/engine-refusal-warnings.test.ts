/**
 * A peer engine's 401/403 recurs on every request that ranks the peer (it stays a candidate), so
 * the key warning is rate-limited per peer, engine and status: one warn line per ten minutes,
 * debug lines in between. The real-Hub test (pool-routing.test.ts) sees one warning for three
 * refusals; these pin the window itself and what counts as a different refusal.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { ManualClock } from '../util/clock.js';
import { EngineRefusalWarnings } from './engine-refusal-warnings.js';

const TEN_MINUTES_MS = 10 * 60_000;

interface Line {
  readonly level: number;
  readonly msg: string;
  readonly peer: string;
  readonly engine: string | null;
  readonly status: number;
}

function setup() {
  const clock = new ManualClock();
  const lines: Line[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString()) as Line);
      done();
    },
  });
  const logger = pino({ level: 'debug' }, sink);
  const warnings = new EngineRefusalWarnings(clock, logger);
  const warned = () => lines.filter((l) => l.level === 40);
  return { clock, lines, warnings, warned };
}

describe("a peer engine's refusal of the key that peer holds for it", () => {
  it('warns on the first refusal, naming the peer, the engine and the status, and saying to check the key', () => {
    const { warnings, warned } = setup();
    assert.equal(warnings.note('hub-b.tail0.ts.net', 'vllm', 403), true);
    assert.equal(warned().length, 1);
    const [line] = warned();
    assert.deepEqual([line!.peer, line!.engine, line!.status], ['hub-b.tail0.ts.net', 'vllm', 403]);
    assert.match(line!.msg, /hub-b\.tail0\.ts\.net's vllm answered 403: check the API key that peer holds for it/);
  });

  it('logs the same refusal at debug for the rest of ten minutes, and warns again once they have passed', () => {
    const { clock, lines, warnings, warned } = setup();
    warnings.note('hub-b', 'lemonade', 401);
    clock.advance(TEN_MINUTES_MS - 1);
    assert.equal(warnings.note('hub-b', 'lemonade', 401), false);
    assert.equal(warned().length, 1);
    assert.equal(lines.at(-1)!.level, 20, 'the repeat is noted at debug');
    clock.advance(1);
    assert.equal(warnings.note('hub-b', 'lemonade', 401), true);
    assert.equal(warned().length, 2);
  });

  it('counts the ten minutes from the last warning, not from the last refusal', () => {
    const { clock, warnings, warned } = setup();
    warnings.note('hub-b', 'omlx', 401);
    for (let i = 0; i < 9; i++) {
      clock.advance(60_000);
      warnings.note('hub-b', 'omlx', 401);
    }
    assert.equal(warned().length, 1, 'a refusal every minute does not hold the warning back for good');
    clock.advance(60_000);
    warnings.note('hub-b', 'omlx', 401);
    assert.equal(warned().length, 2);
  });

  it('warns again after the wall clock is set back, rather than only at debug for as long as the step', () => {
    const { clock, warnings, warned } = setup();
    warnings.note('hub-b', 'vllm', 401);
    clock.advance(-2 * 60 * 60_000);
    assert.equal(warnings.note('hub-b', 'vllm', 401), true);
    assert.equal(warned().length, 2);
    clock.advance(TEN_MINUTES_MS - 1);
    assert.equal(warnings.note('hub-b', 'vllm', 401), false, 'the ten minutes count again from that warning');
  });

  it('warns separately for another peer, another engine or another status within the same ten minutes', () => {
    const { warnings, warned } = setup();
    warnings.note('hub-b', 'vllm', 401);
    warnings.note('hub-c', 'vllm', 401);
    warnings.note('hub-b', 'lemonade', 401);
    warnings.note('hub-b', 'vllm', 403);
    warnings.note('hub-b', 'vllm', 401);
    assert.deepEqual(
      warned().map((l) => `${l.peer} ${l.engine} ${l.status}`),
      ['hub-b vllm 401', 'hub-c vllm 401', 'hub-b lemonade 401', 'hub-b vllm 403'],
    );
  });
});
