import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HubError } from '../errors.js';
import { ManualClock } from '../util/clock.js';
import type { RoutingLogEntry, RoutingLogPage } from './entry.js';
import { RoutingLog, type OpenFields } from './ring.js';

const START = '2026-11-30T12:00:00.000Z';

function fields(id: string, extra: Partial<OpenFields> = {}): OpenFields {
  return {
    id,
    direction: 'outbound',
    path: '/v1/chat/completions',
    model: 'qwen3-coder:30b',
    candidates: 3,
    stream: true,
    bodyBytes: 1200,
    budgetMs: 300_000,
    ...extra,
  };
}

function ring(size = 10, clock = new ManualClock()): { log: RoutingLog; clock: ManualClock } {
  return { log: new RoutingLog({ size, clock, bootId: 'boot-test' }), clock };
}

const ids = (page: RoutingLogPage): string[] => page.entries.map((e) => e.id);

describe('RoutingLog rows', () => {
  it('opens a pending row stamped by the clock, with every outcome field empty', () => {
    const { log } = ring();
    const row = log.open(
      fields('r1', { node: 'local', backend: 'ollama', placement: { promptCeiling: { estimatedTokens: 9, excluded: [], overridden: false } } }),
    );
    assert.equal(row.timestamp, START);
    assert.equal(row.updatedAt, START);
    assert.equal(row.outcome, 'pending');
    assert.deepEqual([row.node, row.backend, row.attempt, row.status, row.durationMs, row.totalMs], ['local', 'ollama', null, null, null, null]);
    assert.deepEqual(
      [row.failedOverFrom, row.attempts, row.clientClosed, row.stoppedReadingMs, row.requestError, row.reason],
      [[], [], false, null, null, null],
    );
    assert.deepEqual(row.promptCeiling, { estimatedTokens: 9, excluded: [], overridden: false });
    assert.equal(row.pin, null);
    assert.equal(row.affinity, null);
    assert.equal(log.get('r1'), row);
  });

  it('replaces a row on change, so an entry already handed out never changes', () => {
    const { log, clock } = ring();
    const opened = log.open(fields('r1'));
    const page = log.page();
    clock.advance(25);
    const settled = log.settle('r1', { outcome: 'served', node: 'local', status: 200, attempt: 1, durationMs: 25 });
    assert.equal(opened.outcome, 'pending');
    assert.equal(page.entries[0]?.outcome, 'pending');
    assert.equal(settled?.outcome, 'served');
    assert.equal(settled?.updatedAt, '2026-11-30T12:00:00.025Z');
    assert.equal(settled?.timestamp, START);
    assert.ok(Object.isFrozen(settled) && Object.isFrozen(settled?.attempts));
  });

  it('leaves a page, a get and a summary already returned as they were when later changes land', () => {
    const { log, clock } = ring();
    log.open(fields('r1'));
    log.open(fields('r2'));
    const page = log.page();
    const got = log.get('r1');
    const summary = log.summary();
    const before = JSON.stringify({ page, got, summary });
    clock.advance(5);
    log.update('r1', { node: 'local', backend: 'ollama', status: 200, durationMs: 4 });
    clock.advance(5);
    log.settle('r1', { outcome: 'failed', failedOverFrom: ['core-2'], attempts: [{ node: 'core-2', backend: null, status: 503, reason: 'HTTP 503' }] });
    log.settle('r2', { outcome: 'served', status: 200 });
    assert.equal(JSON.stringify({ page, got, summary }), before);
    assert.ok(page.entries.every((e) => Object.isFrozen(e) && Object.isFrozen(e.failedOverFrom) && Object.isFrozen(e.attempts)));
    const now = log.page();
    assert.deepEqual(
      now.entries.map((e) => [e.id, e.outcome, e.updatedAt]),
      [
        ['r2', 'served', '2026-11-30T12:00:00.010Z'],
        ['r1', 'failed', '2026-11-30T12:00:00.010Z'],
      ],
    );
    assert.deepEqual(log.get('r1')?.failedOverFrom, ['core-2']);
    assert.equal(log.get('r1')?.status, 200, 'a field the settle left out keeps the value the update gave it');
    assert.deepEqual(now.summary.counts.failed, 1);
  });

  it('builds every row with the wire field order, whatever changed it', () => {
    const { log } = ring();
    const order = [
      'pin',
      'promptCeiling',
      'contextCap',
      'slots',
      'throughput',
      'contention',
      'affinity',
      'withheld',
      'id',
      'timestamp',
      'updatedAt',
      'direction',
      'path',
      'model',
      'node',
      'backend',
      'backendId',
      'candidates',
      'attempt',
      'failedOverFrom',
      'attempts',
      'outcome',
      'status',
      'durationMs',
      'totalMs',
      'clientClosed',
      'stoppedReadingMs',
      'requestError',
      'reason',
      'stream',
      'bodyBytes',
      'budgetMs',
      'traceId',
    ];
    assert.deepEqual(
      Object.keys(
        log.open(
          fields('r1', {
            placement: {
              affinity: {
                outcome: 'miss',
                key: 'hashed',
                qualified: false,
                remembered: null,
                inFlight: null,
                loadReported: null,
                leastLoadedInFlight: null,
                maxInFlight: 2,
                affinityMargin: 0,
              },
              pin: { scope: 'default', model: null, target: 'local', applied: true },
            },
          }),
        ),
      ),
      order,
    );
    assert.deepEqual(Object.keys(log.update('r1', { status: 200, pin: null }) ?? {}), order);
    assert.deepEqual(Object.keys(log.settle('r1', { outcome: 'served', totalMs: 3 }) ?? {}), order);
  });

  it('keeps a row where it is and who placed it, whatever a loosely typed patch carries', () => {
    const { log, clock } = ring();
    log.open(fields('r1'));
    clock.advance(3);
    const patch = { id: 'other', timestamp: '1999-01-01T00:00:00.000Z', direction: 'inbound', updatedAt: 'never', prompt: 'secret', outcome: 'served' };
    const row = log.settle('r1', patch as unknown as Parameters<RoutingLog['settle']>[1]);
    assert.deepEqual([row?.id, row?.timestamp, row?.direction, row?.updatedAt, row?.outcome], ['r1', START, 'outbound', '2026-11-30T12:00:00.003Z', 'served']);
    assert.equal('prompt' in (row ?? {}), false, 'only row fields reach a row');
    assert.equal(log.get('other'), undefined);
  });

  it('stamps each change with the millisecond it happened in', () => {
    const { log, clock } = ring();
    const a = log.open(fields('a'));
    const b = log.open(fields('b'));
    clock.advance(1);
    const a1 = log.update('a', { node: 'local' });
    clock.advance(998);
    const b1 = log.settle('b', { outcome: 'served' });
    assert.deepEqual([a.updatedAt, b.updatedAt, a1?.updatedAt, b1?.updatedAt], [START, START, '2026-11-30T12:00:00.001Z', '2026-11-30T12:00:00.999Z']);
  });

  it('keeps how long a caller had stopped reading when its settle says so, and null when the caller closed its own connection', () => {
    const { log } = ring();
    log.open(fields('stalled'));
    log.open(fields('closed'));
    const stalled = log.settle('stalled', { outcome: 'failed', clientClosed: true, stoppedReadingMs: 300_000 });
    const closed = log.settle('closed', { outcome: 'failed', clientClosed: true, stoppedReadingMs: null });
    assert.deepEqual([stalled?.stoppedReadingMs, closed?.stoppedReadingMs], [300_000, null]);
  });

  it('copies the arrays a caller hands in', () => {
    const { log } = ring();
    log.open(fields('r1'));
    const from = ['core-2'];
    log.update('r1', { failedOverFrom: from });
    from.push('core-3');
    assert.deepEqual(log.get('r1')?.failedOverFrom, ['core-2']);
  });

  it('ignores a change to a row it no longer holds', () => {
    const { log } = ring(1);
    log.open(fields('gone'));
    log.open(fields('kept'));
    assert.equal(log.update('gone', { node: 'local' }), undefined);
    assert.equal(log.settle('gone', { outcome: 'failed' }), undefined);
    assert.equal(log.get('gone'), undefined);
    assert.deepEqual(ids(log.page()), ['kept']);
  });

  it('never stamps a change earlier than the last one, even when the clock steps back', () => {
    const { log, clock } = ring();
    clock.advance(1_000);
    log.open(fields('r1'));
    clock.advance(-5_000);
    const changed = log.update('r1', { node: 'local' });
    assert.equal(changed?.updatedAt, '2026-11-30T12:00:01.000Z');
  });

  it('never lets an id opened again replace the held row: the new placement gets a fresh id', () => {
    const { log, clock } = ring();
    log.open(fields('a'));
    log.open(fields('b'));
    clock.advance(10);
    const again = log.open(fields('a', { model: 'gemma3:1b' }));
    assert.notEqual(again.id, 'a');
    assert.deepEqual(ids(log.page()), [again.id, 'b', 'a']);
    assert.equal(log.get('a')?.model, 'qwen3-coder:30b');
  });
});

describe('RoutingLog eviction', () => {
  it('holds at most size rows, dropping the oldest placement even when it changed last', () => {
    const { log, clock } = ring(3);
    for (const id of ['a', 'b', 'c']) {
      log.open(fields(id));
      clock.advance(1);
    }
    log.update('a', { node: 'local' }); // a recent change does not save an old placement
    log.open(fields('d'));
    clock.advance(1);
    log.open(fields('e'));
    assert.deepEqual(ids(log.page()), ['e', 'd', 'c']);
    assert.equal(log.get('a'), undefined);
    const { summary } = log.page();
    assert.equal(summary.totalRecorded, 5);
    assert.equal(summary.recorded, 3);
    assert.equal(summary.totalRecorded - summary.recorded, 2, 'evicted since boot');
    assert.equal(summary.oldestAt, '2026-11-30T12:00:00.002Z');
  });

  it('still hands onSettle, once, a request whose row was evicted while it ran, with every change the walk made', () => {
    const settled: RoutingLogEntry[] = [];
    const log = new RoutingLog({ size: 3, clock: new ManualClock(), bootId: 'boot-test', onSettle: (row) => void settled.push(row) });
    log.open(fields('long'));
    for (const id of ['s1', 's2', 's3']) {
      log.open(fields(id));
      log.settle(id, { outcome: 'served', node: 'local', status: 200, durationMs: 5, totalMs: 10 });
    }
    assert.equal(log.get('long'), undefined, 'the long stream left the ring while pending');
    assert.equal(log.update('long', { node: 'hub-b', backend: 'vllm', status: 200, durationMs: 90_000 }), undefined);
    assert.equal(log.settle('long', { outcome: 'served', totalMs: 600_000 }), undefined, 'the log still has no row for it');
    assert.equal(log.settle('long', { outcome: 'failed' }), undefined);
    assert.deepEqual(
      settled.map((r) => r.id),
      ['s1', 's2', 's3', 'long'],
    );
    const long = settled[3]!;
    assert.deepEqual([long.outcome, long.node, long.backend, long.status, long.durationMs, long.totalMs], ['served', 'hub-b', 'vllm', 200, 90_000, 600_000]);
    assert.deepEqual(ids(log.page()), ['s3', 's2', 's1']);
  });

  it('gives a new row a fresh id while an evicted row with the asked-for id is still running', () => {
    const settled: string[] = [];
    const log = new RoutingLog({ size: 1, clock: new ManualClock(), bootId: 'boot-test', onSettle: (row) => void settled.push(row.model ?? '') });
    log.open(fields('a', { model: 'first' }));
    log.open(fields('b'));
    const again = log.open(fields('a', { model: 'second' }));
    assert.notEqual(again.id, 'a');
    log.settle('a', { outcome: 'served' });
    assert.deepEqual(settled, ['first']);
  });

  it('reports no oldest row on an empty ring', () => {
    const { log } = ring();
    const { summary } = log.page();
    assert.deepEqual([summary.recorded, summary.totalRecorded, summary.oldestAt], [0, 0, null]);
  });

  it('refuses a size that is not a positive integer', () => {
    assert.throws(() => new RoutingLog({ size: 0, clock: new ManualClock() }), RangeError);
  });
});

describe('RoutingLog.page without since', () => {
  it('returns the newest placements first, cut at limit, with matched counting them all', () => {
    const { log, clock } = ring(10);
    for (const id of ['a', 'b', 'c', 'd']) {
      log.open(fields(id));
      clock.advance(1);
    }
    const page = log.page({ limit: 2 });
    assert.deepEqual(ids(page), ['d', 'c']);
    assert.equal(page.matched, 4);
    assert.equal(page.nextSince, '2026-11-30T12:00:00.003Z');
  });

  it('hands back the latest change among the rows returned as nextSince, not the latest placement', () => {
    const { log, clock } = ring();
    log.open(fields('a'));
    clock.advance(1);
    log.open(fields('b'));
    clock.advance(40);
    log.settle('a', { outcome: 'served' });
    assert.equal(log.page().nextSince, '2026-11-30T12:00:00.041Z');
  });

  it('hands back the current time as nextSince when the ring is empty', () => {
    const { log, clock } = ring();
    clock.advance(7_000);
    const page = log.page();
    assert.deepEqual([page.entries.length, page.matched, page.nextSince], [0, 0, '2026-11-30T12:00:07.000Z']);
  });

  it('returns 200 rows by default and at most 10,000 whatever limit asks', () => {
    const { log } = ring(10_050);
    for (let i = 0; i < 10_050; i++) log.open(fields(`r${i}`));
    assert.equal(log.page().entries.length, 200);
    assert.equal(log.page({ limit: 50_000 }).entries.length, 10_000);
    assert.equal(log.page({ limit: 50_000 }).matched, 10_050);
  });
});

describe('RoutingLog.page with since', () => {
  it('includes the row carrying since, so a change in the same millisecond is not lost', () => {
    const { log } = ring();
    log.open(fields('a'));
    const first = log.page({ since: START });
    assert.deepEqual(ids(first), ['a']);
    log.open(fields('b')); // same millisecond as a
    const next = log.page({ since: first.nextSince });
    assert.deepEqual(ids(next), ['b', 'a'], 'a comes back once more beside b');
  });

  it('returns a row last seen pending again once it settles', () => {
    const { log, clock } = ring();
    log.open(fields('a'));
    clock.advance(5);
    log.open(fields('b'));
    const seen = log.page({ since: START });
    clock.advance(30_031);
    log.settle('a', { outcome: 'served', status: 200, node: 'local', attempt: 1 });
    const next = log.page({ since: seen.nextSince });
    assert.deepEqual(ids(next), ['a', 'b']);
    assert.equal(next.entries[0]?.outcome, 'served');
    assert.equal(next.nextSince, '2026-11-30T12:00:30.036Z');
  });

  it('returns nothing, and the since it was sent, when nothing changed', () => {
    const { log, clock } = ring();
    log.open(fields('a'));
    clock.advance(10);
    const since = '2026-11-30T13:00:00.005+01:00';
    const page = log.page({ since });
    assert.deepEqual([page.entries.length, page.matched, page.nextSince], [0, 0, since]);
  });

  it('compares an offset since with the rows by time', () => {
    const { log, clock } = ring();
    log.open(fields('early'));
    clock.advance(1_000);
    log.open(fields('late'));
    // 12:00:00.500Z written as +01:00: as text it sorts after every row.
    assert.deepEqual(ids(log.page({ since: '2026-11-30T13:00:00.500+01:00' })), ['late']);
    // 11:59:00Z written as -05:00: as text it sorts before every row, and by time it does too.
    assert.deepEqual(ids(log.page({ since: '2026-11-30T06:59:00.000-0500' })), ['late', 'early']);
  });

  it('refuses a since with no zone', () => {
    const { log } = ring();
    assert.throws(
      () => log.page({ since: '2026-11-30T12:00:00.000' }),
      (err: unknown) => err instanceof HubError && err.code === 'HUB_ERR_QUERY_INVALID' && /zone/.test(err.message),
    );
  });

  it('keeps the oldest changes when limit cuts the page, still newest first', () => {
    const { log, clock } = ring();
    for (const id of ['a', 'b', 'c', 'd', 'e']) {
      log.open(fields(id));
      clock.advance(1);
    }
    const page = log.page({ since: START, limit: 2 });
    assert.deepEqual(ids(page), ['b', 'a']);
    assert.equal(page.matched, 5);
    const rest = log.page({ since: page.nextSince, limit: 10 });
    assert.deepEqual(ids(rest), ['e', 'd', 'c', 'b']);
  });

  it('answers a full page with nextSince unchanged when more than limit rows changed in one millisecond', () => {
    const { log } = ring();
    for (const id of ['a', 'b', 'c']) log.open(fields(id));
    const page = log.page({ since: START, limit: 2 });
    assert.equal(page.nextSince, START, 'the poller must ask again with a larger limit');
    assert.equal(page.matched, 3);
    assert.deepEqual(ids(log.page({ since: START, limit: 3 })).sort(), ['a', 'b', 'c']);
  });
});

/** A small seeded generator (mulberry32), so a failure replays. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** A poller that follows nextSince and keeps the newest copy of each id, as the spec tells callers to. */
class Poller {
  readonly seen = new Map<string, RoutingLogEntry>();
  #since = START;
  constructor(
    readonly log: RoutingLog,
    readonly limit: number,
  ) {}

  /** One poll; true when the page was cut and more is waiting. */
  poll(): boolean {
    let limit = this.limit;
    let page = this.log.page({ since: this.#since, limit });
    // A full page that did not move the cursor: more than limit changes share one millisecond.
    while (page.matched > page.entries.length && page.nextSince === this.#since) {
      limit *= 2;
      page = this.log.page({ since: this.#since, limit });
    }
    for (const entry of [...page.entries].reverse()) this.seen.set(entry.id, entry);
    this.#since = page.nextSince;
    return page.matched > page.entries.length;
  }

  drain(): void {
    for (let i = 0; i < 10_000 && this.poll(); i++);
  }
}

describe('RoutingLog cursor, property', () => {
  for (const seed of [1, 2, 3, 42, 2026]) {
    it(`a poller following nextSince ends with the latest copy of every row (seed ${seed})`, () => {
      const random = seeded(seed);
      const { log, clock } = ring(60);
      const poller = new Poller(log, 1 + Math.floor(random() * 8));
      let opened = 0;
      for (let step = 0; step < 400; step++) {
        // Most steps share a millisecond with the one before: that is where a cursor loses rows.
        if (random() < 0.3) clock.advance(Math.floor(random() * 3));
        const held = log.page({ limit: 10_000 }).entries;
        const target = held[Math.floor(random() * held.length)];
        if (target === undefined || random() < 0.25) log.open(fields(`r${opened++}`));
        else if (random() < 0.5) log.update(target.id, { node: `node-${step}`, attempt: step });
        else log.settle(target.id, { outcome: random() < 0.5 ? 'served' : 'failed', status: step });
        if (random() < 0.2) poller.poll();
      }
      poller.drain();
      for (const entry of log.page({ limit: 10_000 }).entries) {
        assert.equal(poller.seen.get(entry.id), entry, `row ${entry.id}: the poller holds an older copy`);
      }
    });
  }
});

describe('RoutingLog summary', () => {
  it('counts outcomes over the rows held, with the failed breakdown', () => {
    const { log } = ring(20);
    const settle = (id: string, patch: Parameters<RoutingLog['settle']>[1]): void => {
      log.open(fields(id));
      log.settle(id, patch);
    };
    settle('served', { outcome: 'served', status: 200 });
    settle('served-after-failover', { outcome: 'served', status: 200, failedOverFrom: ['core-2'] });
    settle('hung-up', { outcome: 'failed', clientClosed: true, node: 'local' });
    settle('bad-request', { outcome: 'failed', status: 500, requestError: { signature: 'no-user-query', basis: 'definitive', confirms: null } });
    settle('client-error', { outcome: 'failed', status: 400, requestError: { signature: 'client-error', basis: 'status', confirms: null } });
    settle('output-fault', { outcome: 'failed', status: 200, requestError: { signature: 'degenerate-output', basis: 'node', confirms: null } });
    settle('ran-out', { outcome: 'failed', failedOverFrom: ['local', 'core-2'], reason: 'HTTP 503' });
    log.open(fields('pending', { candidates: 2 }));
    log.update('pending', { failedOverFrom: ['local'] }); // not settled: not a failover yet

    assert.deepEqual(log.page().summary.counts, {
      served: 2,
      failed: 5,
      pending: 1,
      failedOver: 1,
      clientClosed: 1,
      requestErrors: 2,
      outputFaults: 1,
    });
  });

  it('keeps one bootId for a ring, a different one for another ring, and stamps startedAt at creation', () => {
    const clock = new ManualClock();
    let n = 0;
    const randomId = (): string => `id-${++n}`;
    const first = new RoutingLog({ size: 5, clock, randomId });
    clock.advance(60_000);
    first.open(fields('a'));
    const second = new RoutingLog({ size: 5, clock, randomId });
    assert.equal(first.summary().bootId, 'id-1');
    assert.equal(first.page().summary.bootId, first.summary().bootId);
    assert.equal(second.summary().bootId, 'id-2');
    assert.equal(first.summary().startedAt, START);
    assert.equal(second.summary().startedAt, '2026-11-30T12:01:00.000Z');
  });

  it('draws a random bootId when none is injected', () => {
    const clock = new ManualClock();
    const a = new RoutingLog({ size: 5, clock }).summary().bootId;
    const b = new RoutingLog({ size: 5, clock }).summary().bootId;
    assert.notEqual(a, b);
    assert.match(a, /^[0-9a-f-]{36}$/);
  });
});
