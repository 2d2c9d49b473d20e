import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../util/clock.js';
import type { FinishedSpan } from './span.js';
import { Tracer } from './tracer.js';
import type { TraceIds } from './trace-context.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const APP_SPAN = '00f067aa0ba902b7';

/** Ids in the order they are asked for: s1, s2, ... */
function countingIds(): TraceIds {
  let n = 0;
  return { traceId: () => 'f'.repeat(32), spanId: () => `${++n}`.padStart(16, '0') };
}

const END = { requestId: 'r1', outcome: 'served', node: 'local', backend: 'ollama', status: 200, attempt: 2, failedOver: 1, reason: null } as const;

describe('a request trace without export', () => {
  const tracer = new Tracer({ sink: null, clock: new ManualClock(), ids: countingIds() });

  it('has no trace and sends nothing on when the app sent no traceparent', () => {
    const trace = tracer.begin({}, 'POST /api/chat', () => ({}));
    assert.equal(trace.traceId, null);
    assert.deepEqual(trace.attemptStarted(0), {});
  });

  it('never builds span attributes, and shares one inert trace across such requests', () => {
    const attributes = () => assert.fail('attributes built for a span nobody records');
    const first = tracer.begin({}, 'POST /api/chat', attributes);
    first.ended(END);
    const second = tracer.begin({}, 'POST /api/chat', attributes);
    assert.equal(second, first);
    assert.deepEqual(second.attemptStarted(0), {});
  });

  it("passes the app's traceparent and tracestate on unchanged to every attempt", () => {
    const trace = tracer.begin({ traceparent: `00-${TRACE}-${APP_SPAN}-01`, tracestate: 'app=1' }, 'POST /api/chat', () => ({}));
    assert.equal(trace.traceId, TRACE);
    assert.deepEqual(trace.attemptStarted(0), { traceparent: `00-${TRACE}-${APP_SPAN}-01`, tracestate: 'app=1' });
    assert.deepEqual(trace.attemptStarted(1), { traceparent: `00-${TRACE}-${APP_SPAN}-01`, tracestate: 'app=1' });
  });

  // W3C Trace Context level 2 sets flag 0x02 for a random trace id; a later version may add fields.
  for (const header of [`00-${TRACE}-${APP_SPAN}-03`, `01-${TRACE}-${APP_SPAN}-01-abcd`])
    it(`passes ${header} on byte for byte, flags and later fields included`, () => {
      assert.deepEqual(tracer.begin({ traceparent: header }, 'POST /api/chat', () => ({})).attemptStarted(0), { traceparent: header });
    });
});

describe('a request trace with export', () => {
  function setup() {
    const spans: FinishedSpan[] = [];
    const clock = new ManualClock(1_000);
    const tracer = new Tracer({ sink: { add: (s) => spans.push(s) }, clock, ids: countingIds() });
    return { spans, clock, tracer };
  }

  it("makes the request a child of the app's span and each attempt a child of the request, each engine told its attempt", () => {
    const { spans, clock, tracer } = setup();
    const trace = tracer.begin({ traceparent: `00-${TRACE}-${APP_SPAN}-01` }, 'POST /api/chat', () => ({ 'http.route': '/api/chat' }));
    trace.setRequestId('r1');
    assert.deepEqual(trace.attemptStarted(0), { traceparent: `00-${TRACE}-0000000000000002-01` });
    clock.advance(5);
    trace.attemptEnded({ node: 'local', backend: 'ollama', status: 503, failedOver: 'HTTP 503' });
    assert.deepEqual(trace.attemptStarted(1), { traceparent: `00-${TRACE}-0000000000000003-01` });
    clock.advance(7);
    trace.attemptEnded({ node: 'hub-b.tail0.ts.net', backend: 'vllm', status: 200, failedOver: null });
    trace.ended({ ...END, node: 'hub-b.tail0.ts.net', backend: 'vllm' });
    assert.deepEqual(
      spans.map((s) => [s.name, s.kind, s.spanId, s.parentSpanId, s.startMs, s.endMs, s.error]),
      [
        ['forward to local', 'client', '0000000000000002', '0000000000000001', 1_000, 1_005, 'HTTP 503'],
        ['forward to hub-b.tail0.ts.net', 'client', '0000000000000003', '0000000000000001', 1_005, 1_012, null],
        ['POST /api/chat', 'server', '0000000000000001', APP_SPAN, 1_000, 1_012, null],
      ],
    );
    assert.deepEqual(spans[0]!.attributes, {
      'http.route': '/api/chat',
      'hub_pool.request_id': 'r1',
      'hub_pool.attempt': 1,
      'hub_pool.node': 'local',
      'hub_pool.backend': 'ollama',
      'http.response.status_code': 503,
      'hub_pool.failed_over': 'HTTP 503',
    });
    assert.ok(spans.every((s) => s.traceId === TRACE));
  });

  it('starts a sampled trace of its own when the app sent none', () => {
    const { spans, tracer } = setup();
    const trace = tracer.begin({}, 'POST /api/chat', () => ({}));
    assert.equal(trace.traceId, 'f'.repeat(32));
    assert.deepEqual(trace.attemptStarted(0), { traceparent: `00-${'f'.repeat(32)}-0000000000000002-01` });
    trace.attemptEnded({ node: 'local', backend: 'ollama', status: 200, failedOver: null });
    trace.ended(END);
    assert.equal(spans.find((s) => s.kind === 'server')?.parentSpanId, null);
  });

  it('exports nothing for an app trace that is not sampled, and passes the flag on', () => {
    const { spans, tracer } = setup();
    const trace = tracer.begin({ traceparent: `00-${TRACE}-${APP_SPAN}-00` }, 'POST /api/chat', () => ({}));
    assert.deepEqual(trace.attemptStarted(0), { traceparent: `00-${TRACE}-0000000000000002-00` });
    trace.attemptEnded({ node: 'local', backend: 'ollama', status: 200, failedOver: null });
    trace.ended(END);
    assert.deepEqual(spans, []);
  });

  it('ends the request span once, marked failed with the reason', () => {
    const { spans, tracer } = setup();
    const trace = tracer.begin({}, 'POST /api/chat', () => ({}));
    trace.ended({ ...END, outcome: 'failed', reason: 'no candidate holds the model' });
    trace.ended(END);
    assert.deepEqual(
      spans.map((s) => s.error),
      ['no candidate holds the model'],
    );
  });
});
