/**
 * The walk tells each engine it asks about the request's trace (issue 12, item 5), over real
 * sockets: two loopback engines that record the headers they are sent, the first answering 503
 * so the walk fails over to the second.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { ManualClock, systemClock } from '../util/clock.js';
import type { FinishedSpan } from '../tracing/span.js';
import { Tracer } from '../tracing/tracer.js';
import { ROUTED_ROUTES } from './route-table.js';
import { until } from '../engines/fake-engine.testkit.js';
import { localCandidate as candidate, startWalkApp, walkDeps, type WalkApp } from './walk.fixture.js';

const embed = ROUTED_ROUTES.find((r) => r.path === '/api/embed')!;
const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const APP_PARENT = `00-${TRACE}-00f067aa0ba902b7-01`;

interface Engine {
  readonly url: string;
  readonly seen: IncomingHttpHeaders[];
  close(): Promise<void>;
}

async function engine(status: number): Promise<Engine> {
  const seen: IncomingHttpHeaders[] = [];
  const server: Server = createServer((req, res) => {
    seen.push(req.headers);
    req.resume();
    req.on('end', () => res.writeHead(status, { 'content-type': 'application/json' }).end(status === 200 ? '{"embeddings":[[0.5]]}' : '{"error":"busy"}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe("the walk passes the request's trace to each engine", () => {
  let busy: Engine;
  let good: Engine;
  let app: WalkApp;
  let tracer: Tracer;
  let order: () => ReturnType<typeof candidate>[];
  const deps = walkDeps();

  before(async () => {
    busy = await engine(503);
    good = await engine(200);
    order = () => [candidate('busy', busy.url), candidate('good', good.url)];
    app = await startWalkApp(deps, (_body, req) => ({
      route: embed,
      model: 'm',
      order: order(),
      trace: tracer.begin({ traceparent: req.headers.traceparent, tracestate: req.headers.tracestate }, 'POST /api/embed', () => ({})),
    }));
  });
  after(async () => {
    await app.close();
    await deps.dispatcher.close();
    await busy.close();
    await good.close();
  });

  async function send(headers: Record<string, string>, status = 200): Promise<void> {
    busy.seen.length = 0;
    good.seen.length = 0;
    const res = await request(`${app.url}/api/embed`, { method: 'POST', headers, body: '{"model":"m","input":"x"}' });
    assert.equal(res.statusCode, status);
    await res.body.text();
  }

  it("passes the app's traceparent and tracestate unchanged when nothing is exported", async () => {
    tracer = new Tracer({ sink: null, clock: systemClock });
    await send({ traceparent: APP_PARENT, tracestate: 'app=1' });
    assert.deepEqual([busy.seen[0]?.traceparent, busy.seen[0]?.tracestate], [APP_PARENT, 'app=1']);
    assert.deepEqual([good.seen[0]?.traceparent, good.seen[0]?.tracestate], [APP_PARENT, 'app=1']);
  });

  it('sends no trace header when the app sent none and nothing is exported', async () => {
    tracer = new Tracer({ sink: null, clock: systemClock });
    await send({});
    assert.deepEqual([busy.seen[0]?.traceparent, good.seen[0]?.traceparent], [undefined, undefined]);
  });

  it('names each attempt as the parent when spans are exported', async () => {
    const spans: FinishedSpan[] = [];
    tracer = new Tracer({ sink: { add: (s) => spans.push(s) }, clock: new ManualClock() });
    await send({ traceparent: APP_PARENT });
    // The walk settles (and ends its spans) as the body ends, which can be after the app has read it.
    await until(() => spans.some((s) => s.kind === 'server'), 5000, 'the walk to settle');
    const attempts = spans.filter((s) => s.kind === 'client');
    assert.equal(attempts.length, 2);
    assert.equal(busy.seen[0]?.traceparent, `00-${TRACE}-${attempts[0]!.spanId}-01`);
    assert.equal(good.seen[0]?.traceparent, `00-${TRACE}-${attempts[1]!.spanId}-01`);
    assert.deepEqual(
      attempts.map((s) => s.error),
      ['HTTP 503', null],
    );
  });

  it('counts on the request span only the candidates the walk moved on from, not the one it ran out on', async () => {
    const spans: FinishedSpan[] = [];
    tracer = new Tracer({ sink: { add: (s) => spans.push(s) }, clock: new ManualClock() });
    order = () => [candidate('busy', busy.url), candidate('busy-too', busy.url)];
    try {
      await send({ traceparent: APP_PARENT }, 502);
    } finally {
      order = () => [candidate('busy', busy.url), candidate('good', good.url)];
    }
    await until(() => spans.some((s) => s.kind === 'server'), 5000, 'the walk to settle');
    const request = spans.find((s) => s.kind === 'server')!;
    assert.deepEqual([request.attributes['hub_pool.outcome'], request.attributes['hub_pool.failed_over']], ['failed', 1]);
  });
});
