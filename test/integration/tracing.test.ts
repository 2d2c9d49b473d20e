/**
 * Tracing (issue 12, item 5): an app's W3C traceparent reaches the engine and the peer, both
 * Hubs' routing-log rows and the peer's log line carry its trace id, and with
 * OTEL_EXPORTER_OTLP_ENDPOINT set each Hub exports a span for the request and one for every
 * attempt to a collector, here a node:http server on loopback that stores what it is sent.
 *
 * A's own Ollama answers 503, so A fails over to B; B's Ollama answers 503 too, so B fails over
 * to its vLLM, which serves.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { eventually } from '../helpers/hub-process.js';
import { type PoolHub, START_TIMEOUT_MS, TEST_TIMEOUT_MS, usePool } from '../helpers/pool-fixture.js';
import { scaled } from '../helpers/time-scale.js';

const MODEL = 'traced:8b';
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const APP_SPAN = '00f067aa0ba902b7';
/**
 * Written into the prompt, so the test can show no span carries it. The marker is a word no id or
 * timestamp can spell (they are hex digits), unlike a number, which a span id once matched.
 */
const MARKER = 'quokkazebra';
const PROMPT = `a prompt that must never reach a span ${MARKER}`;

interface OtlpValue {
  stringValue?: string;
  intValue?: string;
  boolValue?: boolean;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: OtlpValue }[];
  status: { code: number; message?: string };
}
interface Span {
  readonly id: string;
  readonly parent: string | null;
  readonly name: string;
  readonly kind: number;
  readonly error: string | null;
  readonly attrs: Record<string, string>;
}

/** An OTLP/HTTP collector on loopback: keeps every export's raw body and its spans. */
class Collector {
  readonly bodies: string[] = [];
  readonly spans: Span[] = [];
  readonly paths: string[] = [];
  #server: Server | null = null;
  url = '';

  async start(): Promise<void> {
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        this.paths.push(`${req.method} ${req.url} ${req.headers['content-type']} ${req.headers['x-collector-key']}`);
        this.bodies.push(text);
        const doc = JSON.parse(text) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] };
        for (const rs of doc.resourceSpans) for (const ss of rs.scopeSpans) for (const s of ss.spans) this.spans.push(toSpan(s));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => this.#server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  ofTrace(traceId: string): Span[] {
    return this.spans.filter((s) => s.attrs['trace'] === traceId);
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.#server?.close(() => resolve()) ?? resolve());
  }
}

function toSpan(s: OtlpSpan): Span {
  const attrs: Record<string, string> = { trace: s.traceId };
  for (const a of s.attributes) attrs[a.key] = a.value.stringValue ?? a.value.intValue ?? String(a.value.boolValue);
  return { id: s.spanId, parent: s.parentSpanId ?? null, name: s.name, kind: s.kind, error: s.status.code === 2 ? (s.status.message ?? '') : null, attrs };
}

async function tracedChat(hub: PoolHub, headers: Record<string, string>): Promise<{ status: number; requestId: string; servedBy: string }> {
  const res = await request(`${hub.pool}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: PROMPT }] }),
    headersTimeout: scaled(20_000),
    bodyTimeout: scaled(20_000),
  });
  await res.body.text();
  return { status: res.statusCode, requestId: String(res.headers['x-hub-pool-request-id']), servedBy: String(res.headers['x-hub-pool-served-by']) };
}

describe('tracing a request across two Hubs', () => {
  const collector = new Collector();

  before(
    async () => {
      await collector.start();
    },
    { timeout: START_TIMEOUT_MS },
  );
  const pool = usePool<'a' | 'b'>(() => {
    // A short export interval, so spans arrive while the Hubs run; the header shows OTEL_EXPORTER_OTLP_HEADERS is sent.
    const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_BSP_SCHEDULE_DELAY: '50', OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-key=k%3D1' };
    return {
      hubs: {
        a: { ollama: { models: [MODEL] }, env: otel },
        b: { ollama: { models: [MODEL] }, vllm: { models: [MODEL] }, env: otel },
      },
      pairs: [['a', 'b']],
    };
  });
  before(
    async () => {
      await pool().a.engines.ollama!.setFault({ mode: 'error', status: 503, model: MODEL });
      await pool().b.engines.ollama!.setFault({ mode: 'error', status: 503, model: MODEL });
    },
    { timeout: START_TIMEOUT_MS },
  );
  after(
    async () => {
      await collector.close();
    },
    { timeout: START_TIMEOUT_MS },
  );

  it("carries the app's trace id into both Hubs' rows and the peer's log line", { timeout: TEST_TIMEOUT_MS }, async () => {
    const { a, b } = pool();
    const sent = await tracedChat(a, { traceparent: `00-${TRACE_ID}-${APP_SPAN}-01`, tracestate: 'app=7' });
    assert.equal(sent.status, 200);
    assert.equal(sent.servedBy, b.name);
    const entry = await a.settledRow(sent.requestId);
    const inbound = await b.settledRow(sent.requestId);
    assert.deepEqual([entry.direction, entry.traceId, entry.failedOverFrom], ['outbound', TRACE_ID, ['local']]);
    assert.deepEqual([inbound.direction, inbound.traceId, inbound.backend, inbound.failedOverFrom], ['inbound', TRACE_ID, 'vllm', ['local']]);
    const bLine = await eventually(
      () =>
        b
          .log()
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Record<string, unknown>)
          .find((l) => l.requestId === sent.requestId && l.msg === 'failed over from a candidate'),
      "B's failover line",
    );
    assert.equal(bLine.traceId, TRACE_ID);
  });

  it(
    'exports a span for the request and one for each attempt on each Hub, joined into one trace, with no prompt in them',
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const { a, b } = pool();
      const traceId = 'a'.repeat(31) + '1';
      const sent = await tracedChat(a, { traceparent: `00-${traceId}-${APP_SPAN}-01` });
      assert.equal(sent.status, 200);
      // Two server spans and four attempt spans: A (local, B) and B (its Ollama, its vLLM).
      const spans = await eventually(() => (collector.ofTrace(traceId).length >= 6 ? collector.ofTrace(traceId) : null), 'six spans at the collector');
      assert.equal(spans.length, 6);
      const servers = spans.filter((s) => s.kind === 2);
      const entry = servers.find((s) => s.attrs['hub_pool.direction'] === 'outbound')!;
      const peer = servers.find((s) => s.attrs['hub_pool.direction'] === 'inbound')!;
      assert.ok(entry && peer, JSON.stringify(servers));

      // A's request span: a child of the app's span, naming the request, the node that served and the failover.
      assert.equal(entry.parent, APP_SPAN);
      assert.equal(entry.name, 'POST /v1/chat/completions');
      assert.deepEqual(
        [
          entry.attrs['hub_pool.request_id'],
          entry.attrs['hub_pool.node'],
          entry.attrs['hub_pool.outcome'],
          entry.attrs['hub_pool.failed_over'],
          entry.attrs['hub_pool.attempt'],
          entry.error,
        ],
        [sent.requestId, b.name, 'served', '1', '2', null],
      );
      const aAttempts = spans.filter((s) => s.parent === entry.id).sort((x, y) => Number(x.attrs['hub_pool.attempt']) - Number(y.attrs['hub_pool.attempt']));
      assert.deepEqual(
        aAttempts.map((s) => [
          s.name,
          s.kind,
          s.attrs['hub_pool.request_id'],
          s.attrs['hub_pool.attempt'],
          s.attrs['hub_pool.node'],
          s.attrs['http.response.status_code'],
          s.error,
        ]),
        [
          ['forward to local', 3, sent.requestId, '1', 'local', '503', 'HTTP 503'],
          [`forward to ${b.name}`, 3, sent.requestId, '2', b.name, '200', null],
        ],
      );

      // B's request span is a child of A's attempt that reached it, and has its own failover.
      assert.equal(peer.parent, aAttempts[1]!.id);
      assert.deepEqual(
        [
          peer.attrs['hub_pool.request_id'],
          peer.attrs['hub_pool.from_peer'],
          peer.attrs['hub_pool.node'],
          peer.attrs['hub_pool.backend'],
          peer.attrs['hub_pool.failed_over'],
        ],
        [sent.requestId, a.name, 'local', 'vllm', '1'],
      );
      const bAttempts = spans.filter((s) => s.parent === peer.id).sort((x, y) => Number(x.attrs['hub_pool.attempt']) - Number(y.attrs['hub_pool.attempt']));
      assert.deepEqual(
        bAttempts.map((s) => [s.attrs['hub_pool.node'], s.attrs['hub_pool.backend'], s.attrs['http.response.status_code'], s.error]),
        [
          ['local', 'ollama', '503', 'HTTP 503'],
          ['local', 'vllm', '200', null],
        ],
      );

      assert.ok(
        collector.paths.every((p) => p === 'POST /v1/traces application/json k=1'),
        collector.paths.join('\n'),
      );
      assert.ok(
        collector.bodies.every((body) => !body.includes(PROMPT) && !body.includes(MARKER)),
        'no export carries the prompt',
      );
    },
  );

  it('starts a trace when the app sent none, and leaves an unsampled one unexported', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { a, b } = pool();
    const started = await tracedChat(a, {});
    const row = await a.settledRow(started.requestId);
    assert.match(row.traceId ?? '', /^[0-9a-f]{32}$/);
    assert.equal((await b.settledRow(started.requestId)).traceId, row.traceId, 'the peer joined the trace A started');
    const root = await eventually(
      () => collector.ofTrace(row.traceId!).find((s) => s.kind === 2 && s.attrs['hub_pool.direction'] === 'outbound'),
      "A's root span",
    );
    assert.equal(root.parent, null);

    const unsampledTrace = 'b'.repeat(31) + '2';
    const unsampled = await tracedChat(a, { traceparent: `00-${unsampledTrace}-${APP_SPAN}-00` });
    assert.equal((await a.settledRow(unsampled.requestId)).traceId, unsampledTrace);
    assert.equal((await b.settledRow(unsampled.requestId)).traceId, unsampledTrace);
    // A later sampled request's spans arriving shows the exporter has flushed past the unsampled one.
    const marker = 'c'.repeat(31) + '3';
    await tracedChat(a, { traceparent: `00-${marker}-${APP_SPAN}-01` });
    await eventually(() => collector.ofTrace(marker).filter((s) => s.kind === 2).length === 2, "both Hubs' spans of the marker trace at the collector");
    assert.deepEqual(collector.ofTrace(unsampledTrace), []);
  });
});
