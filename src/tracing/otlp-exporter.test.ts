import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { MAX_EXPORT_BATCH_SPANS, MAX_QUEUED_SPANS, OtlpExporter } from './otlp-exporter.js';
import type { FinishedSpan } from './span.js';
import { IDLE } from '../util/background.js';

const span = (n: number): FinishedSpan => ({
  traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
  spanId: n.toString(16).padStart(16, '0'),
  parentSpanId: null,
  name: 'POST /api/chat',
  kind: 'server',
  startMs: 1_700_000_000_000.5,
  endMs: 1_700_000_000_010,
  attributes: { 'hub_pool.request_id': `r${n}` },
  error: null,
});

describe('the OTLP exporter', () => {
  let server: Server;
  let url = '';
  let answer = 200;
  const batches: number[] = [];
  const dispatcher = new Agent();
  const resource = { serviceName: 'cihub', serviceVersion: '0.1.0', hostName: 'box' };

  before(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const doc = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { resourceSpans: { scopeSpans: { spans: unknown[] }[] }[] };
        batches.push(doc.resourceSpans[0]!.scopeSpans[0]!.spans.length);
        res.writeHead(answer).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`;
  });
  after(async () => {
    await dispatcher.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('sends what is queued in batches of at most 512, and asks for an early flush when a batch is full', async () => {
    batches.length = 0;
    let asked = 0;
    const exporter = new OtlpExporter({ url, headers: {}, resource, dispatcher, onBatchReady: () => (asked += 1) });
    for (let i = 1; i <= MAX_EXPORT_BATCH_SPANS + 3; i++) exporter.add(span(i));
    assert.equal(asked, 1);
    await exporter.flush();
    assert.deepEqual(batches, [MAX_EXPORT_BATCH_SPANS, 3]);
    assert.equal(exporter.queued, 0);
  });

  it(`holds at most ${MAX_QUEUED_SPANS} spans while the collector is away, and says it dropped some`, async () => {
    batches.length = 0;
    const exporter = new OtlpExporter({ url, headers: {}, resource, dispatcher });
    for (let i = 1; i <= MAX_QUEUED_SPANS + 10; i++) exporter.add(span(i));
    assert.equal(exporter.queued, MAX_QUEUED_SPANS);
    await assert.rejects(exporter.flush(), /^Error: spans were dropped/);
    await exporter.flush();
    assert.equal(await exporter.flush(), IDLE, 'nothing left to send: neither a success nor a failure');
  });

  it('says it dropped some also when the collector refuses the batch it could send', async () => {
    answer = 503;
    try {
      const exporter = new OtlpExporter({ url, headers: {}, resource, dispatcher });
      for (let i = 1; i <= MAX_QUEUED_SPANS + 10; i++) exporter.add(span(i));
      await assert.rejects(exporter.flush(), /refused spans with HTTP 503; and spans were dropped/);
    } finally {
      answer = 200;
    }
  });

  it('drops a batch the collector refuses and says so, keeping nothing queued', async () => {
    answer = 503;
    try {
      const exporter = new OtlpExporter({ url, headers: {}, resource, dispatcher });
      exporter.add(span(1));
      await assert.rejects(exporter.flush(), /refused spans with HTTP 503/);
      assert.equal(exporter.queued, 0);
    } finally {
      answer = 200;
    }
  });
});
