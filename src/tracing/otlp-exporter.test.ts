import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
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

/** A collector that takes each export request and never answers it, until told to hang up on it. */
class SilentCollector {
  readonly #server: Server;
  readonly #held: ServerResponse[] = [];
  #waiters: ((n: number) => void)[] = [];
  /** Export requests taken so far, and the most ever open at once. */
  taken = 0;
  mostOpen = 0;

  private constructor(server: Server) {
    this.#server = server;
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      req.resume();
      this.#held.push(res);
      res.on('close', () => this.#held.splice(this.#held.indexOf(res), 1));
      this.taken += 1;
      this.mostOpen = Math.max(this.mostOpen, this.#held.length);
      for (const w of this.#waiters.splice(0)) w(this.taken);
    });
  }

  static async start(): Promise<SilentCollector> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new SilentCollector(server);
  }

  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/v1/traces`;
  }

  /** Settles when the next export request arrives, with how many have arrived by then. */
  nextRequest(): Promise<number> {
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Closes the connection of every request held, as a collector that gives up would. */
  hangUp(): void {
    for (const res of [...this.#held]) res.socket?.destroy();
  }

  async close(): Promise<void> {
    this.hangUp();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

describe('the OTLP exporter against a collector that never answers', () => {
  const resource = { serviceName: 'cihub', serviceVersion: '0.1.0', hostName: 'box' };
  let collector: SilentCollector;
  let dispatcher: Agent;
  before(async () => {
    collector = await SilentCollector.start();
    // Room for many connections to one origin, so only the exporter can keep its exports to one.
    dispatcher = new Agent({ connections: 100 });
  });
  after(async () => {
    await collector.close();
    await dispatcher.destroy();
  });

  it('keeps one export request open at a time while spans keep coming, and drops those past the bound, saying so with the next export', async () => {
    const outcomes: Promise<unknown>[] = [];
    const exporter: OtlpExporter = new OtlpExporter({
      url: collector.url,
      headers: {},
      resource,
      dispatcher,
      // As the Hub wires it: each full batch asks for an export of its own, beside the timer's.
      onBatchReady: () => outcomes.push(exporter.flush().catch((err: Error) => err)),
    });
    const arrived = collector.nextRequest();
    for (let i = 1; i <= MAX_EXPORT_BATCH_SPANS; i++) exporter.add(span(i));
    await arrived;

    // A second full batch, a whole queue's worth, and the timer's tick, all while the first export is out.
    const anotherRequest = collector.nextRequest().then(() => 'a second export request was opened');
    for (let i = 1; i <= MAX_QUEUED_SPANS + 100; i++) exporter.add(span(i));
    assert.equal(await Promise.race([exporter.flush(), anotherRequest]), IDLE, 'the tick finds an export out and leaves it be');
    assert.equal(await Promise.race([outcomes[1]!, anotherRequest]), IDLE, "the second full batch's call too");
    assert.equal(outcomes.length, 2, 'the export out took no batch from the queue meanwhile, so the queue filled once');
    assert.equal(exporter.queued, MAX_QUEUED_SPANS, 'the queue holds at its bound; the rest are dropped');

    // The collector gives up on the export out; the next tick sends the next batch, and says spans were dropped.
    collector.hangUp();
    assert.match(String(await outcomes[0]), /could not send spans to the OTLP collector/);
    const tick = exporter.flush();
    await anotherRequest;
    collector.hangUp();
    await assert.rejects(tick, /could not send spans to the OTLP collector .*; and spans were dropped: 2048 were already waiting/);
    assert.equal(collector.taken, 2);
    assert.equal(collector.mostOpen, 1);
  });

  it('at shutdown waits for the export out, then sends what is still queued', async () => {
    // A collector that is only slow: it takes each export whole and answers 200 when let go.
    let letGo = (): void => {};
    const gate = new Promise<void>((resolve) => (letGo = resolve));
    const seen: number[] = [];
    let arrivedFirst = (): void => {};
    const firstIn = new Promise<void>((resolve) => (arrivedFirst = resolve));
    const slow = createServer(async (req, res) => {
      for await (const _chunk of req);
      seen.push(seen.length + 1);
      arrivedFirst();
      await gate;
      res.writeHead(200).end();
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(slow.address() as AddressInfo).port}/v1/traces`;
      const exporter = new OtlpExporter({ url, headers: {}, resource, dispatcher });
      exporter.add(span(1));
      const out = exporter.flush();
      await firstIn;
      const finishing = exporter.finish();
      exporter.add(span(2));
      letGo();
      await finishing;
      // Whether the export out took span 2 in its loop or finish sent it after, it is sent by the time finish returns.
      assert.deepEqual(seen, [1, 2], 'finish returned with the span queued behind the export out sent');
      assert.equal(exporter.queued, 0);
      assert.equal(await out, undefined, 'the export out was taken');
    } finally {
      await new Promise<void>((resolve) => slow.close(() => resolve()));
    }
  });

  it('at shutdown asks a collector that just failed the export out nothing more, so the shutdown is not held another 10 s', async () => {
    const exporter = new OtlpExporter({ url: collector.url, headers: {}, resource, dispatcher });
    exporter.add(span(1));
    const arrived = collector.nextRequest();
    const out = exporter.flush().catch((err: Error) => err);
    const taken = await arrived;
    const finishing = exporter.finish();
    exporter.add(span(2));
    collector.hangUp();
    assert.match(String(await out), /could not send spans to the OTLP collector/);
    assert.equal(await finishing, IDLE);
    assert.equal(collector.taken, taken, 'no second export request');
    assert.equal(exporter.queued, 1, 'the span queued behind it is left unsent');
  });
});
