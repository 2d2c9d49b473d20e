import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { PassThrough, Writable } from 'node:stream';
import { once } from 'node:events';
import { Agent } from '../util/undici-lean.js';
import { dropBody, readUpTo, readWithin, relayBody } from './relay-body.js';
import { UpstreamExchange } from './upstream-exchange.js';
import { CallerSignal } from './walk-caller.js';

/** How the upstream answers a path: each test registers its own. */
type Answer = (req: IncomingMessage, res: ServerResponse) => void;
const answers = new Map<string, Answer>();
let server: Server;
let origin: string;
let agent: Agent;
const sockets = new Set<Socket>();

before(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.once('end', () => answers.get(req.url!)!(req, res));
  });
  server.on('connection', (s: Socket) => sockets.add(s));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  agent = new Agent({ keepAliveTimeout: 10_000 });
});

after(async () => {
  await agent.close();
  server.closeAllConnections();
  server.close();
});

let paths = 0;
/** Starts an exchange with the upstream answering `answer`; resolves with it once its headers are in. */
function exchange(answer: Answer, opts: { signal?: CallerSignal; bodyTimeoutMs?: number } = {}): UpstreamExchange {
  const path = `/t${(paths += 1)}`;
  answers.set(path, answer);
  return new UpstreamExchange(agent, {
    origin,
    path,
    headers: { 'content-type': 'application/json' },
    body: Buffer.from('{}'),
    signal: opts.signal ?? new CallerSignal(),
    headersTimeoutMs: 10_000,
    bodyTimeoutMs: opts.bodyTimeoutMs ?? 10_000,
  });
}

/** An app's end that keeps what it is sent (a stand-in for the response: no socket, so no headers to flush). */
function appEnd(): PassThrough & { text: () => string } {
  const res = new PassThrough();
  const got: Buffer[] = [];
  res.on('data', (c: Buffer) => got.push(c));
  return Object.assign(res, { text: () => Buffer.concat(got).toString() });
}
const asResponse = (s: Writable) => Object.assign(s, { flushHeaders() {} }) as unknown as ServerResponse;
/** Long enough that no app end in these tests that reads at all is taken as stalled. */
const STALL_MS = 60_000;

describe('UpstreamExchange', () => {
  it('keeps the chunks that came with the headers for the consumer that takes the body later', async () => {
    const ex = await exchange((_q, r) => r.end('all of it')).answered;
    while (!ex.finished) await new Promise((r) => setImmediate(r));
    const read = await readUpTo(ex, 1024);
    assert.equal(read.kind === 'whole' && read.bytes.toString(), 'all of it');
    assert.equal(ex.statusCode, 200);
  });

  it('rejects its answer with the caller abort when the caller leaves before the headers', async () => {
    const signal = new CallerSignal();
    const ex = exchange(() => {}, { signal });
    setImmediate(() => signal.abort());
    await assert.rejects(ex.answered, { name: 'AbortError' });
  });

  it('fails the body it is relaying when the caller leaves part-way', async () => {
    const signal = new CallerSignal();
    const ex = await exchange((_q, r) => r.write('first'), { signal }).answered;
    const read = readUpTo(ex, 1024);
    setImmediate(() => signal.abort());
    const r = await read;
    assert.equal(r.kind, 'failed');
  });

  it('carries a large body through an app that reads slowly, in order, pausing and resuming', async () => {
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const ex = await exchange((_q, r) => {
      for (let i = 0; i < 64; i++) r.write(chunk);
      r.end('!');
    }).answered;
    let bytes = 0;
    let last = '';
    const slow = new Writable({
      highWaterMark: 1024,
      write(c: Buffer, _e, done) {
        bytes += c.length;
        last = c.toString('latin1').slice(-1);
        setImmediate(done);
      },
    });
    const ends: boolean[] = [];
    await relayBody(ex, asResponse(slow), { judge: null, stallMs: STALL_MS }, (dropped) => ends.push(dropped));
    assert.deepEqual([bytes, last, ends], [64 * chunk.length + 1, '!', [false]]);
  });
});

describe('UpstreamExchange: what nobody has taken yet', () => {
  /** The exchange driven through undici's handler interface by hand, to see when it pauses. */
  function byHand() {
    const calls: string[] = [];
    const controller = {
      paused: false,
      aborted: false,
      reason: null,
      pause() {
        this.paused = true;
        calls.push('pause');
      },
      resume() {
        this.paused = false;
        calls.push('resume');
      },
      abort() {
        calls.push('abort');
      },
    };
    const dispatcher = { dispatch: () => true } as unknown as Agent;
    const ex = new UpstreamExchange(dispatcher, {
      origin,
      path: '/',
      headers: {},
      body: Buffer.alloc(0),
      signal: new CallerSignal(),
      headersTimeoutMs: 1,
      bodyTimeoutMs: 1,
    });
    ex.onRequestStart(controller);
    ex.onResponseStart(controller, 200, {});
    return { ex, controller, calls };
  }

  it('queues up to 64 KiB unclaimed, pauses past it, and resumes when a consumer takes the body', async () => {
    const { ex, controller, calls } = byHand();
    const kib = (n: number) => Buffer.alloc(n * 1024, 'a');
    ex.onResponseData(controller, kib(40));
    ex.onResponseData(controller, kib(24));
    assert.deepEqual(calls, [], 'exactly 64 KiB is still within the bound');
    ex.onResponseData(controller, kib(1));
    assert.deepEqual(calls, ['pause']);
    const read = readUpTo(ex, 1024 * 1024);
    assert.deepEqual(calls, ['pause', 'resume'], 'taking the body resumes it');
    ex.onResponseEnd();
    const r = await read;
    assert.equal(r.kind === 'whole' && r.bytes.length, 65 * 1024);
  });
});

describe('readUpTo', () => {
  it('stops past the bound, keeps what it read, and leaves the rest for a relay', async () => {
    const ex = await exchange((_q, r) => {
      r.write('abcdefg');
      setTimeout(() => r.end('hij'), 20);
    }).answered;
    const r = await readUpTo(ex, 4);
    assert.equal(r.kind, 'over-limit');
    const head = r.kind === 'over-limit' ? r.head : [];
    assert.equal(Buffer.concat([...head]).toString(), 'abcdefg');
    const res = appEnd();
    await relayBody(ex, asResponse(res), { judge: null, head, stallMs: STALL_MS }, () => {});
    assert.equal(res.text(), 'abcdefghij');
  });

  it('reports a body that fails part-way', async () => {
    const ex = await exchange((_q, r) => {
      r.writeHead(200, { 'content-length': '100' });
      r.write('par', () => r.socket?.destroy());
    }).answered;
    const r = await readUpTo(ex, 1024);
    assert.equal(r.kind, 'failed');
    assert.equal((r.kind === 'failed' ? (r.error as { code?: string }) : null)?.code, 'UND_ERR_SOCKET');
  });

  it("reports undici's body timeout when the body stops arriving", async () => {
    const ex = await exchange((_q, r) => r.write('a'), { bodyTimeoutMs: 50 }).answered;
    const r = await readUpTo(ex, 1024);
    assert.equal((r.kind === 'failed' ? (r.error as { code?: string }) : null)?.code, 'UND_ERR_BODY_TIMEOUT');
  });
});

describe('readWithin', () => {
  it('gives null for a body past its bound, and for one still arriving at its deadline', async () => {
    const big = await exchange((_q, r) => r.end('x'.repeat(100))).answered;
    assert.equal(await readWithin(big, 10, 10_000), null);
    const slow = await exchange((_q, r) => r.write('a')).answered;
    assert.equal(await readWithin(slow, 1024, 50), null);
  });
});

describe('dropBody', () => {
  it('keeps the connection of an answer that had already arrived whole', async () => {
    const first = await exchange((_q, r) => r.end('done')).answered;
    while (!first.finished) await new Promise((r) => setImmediate(r));
    dropBody(first);
    const before = sockets.size;
    const second = await exchange((_q, r) => r.end('again')).answered;
    const read = await readUpTo(second, 1024);
    assert.equal(read.kind === 'whole' && read.bytes.toString(), 'again');
    assert.equal(sockets.size, before, 'the second request reused the connection');
  });
});

describe('relayBody', () => {
  it('hands a settle that throws to the awaiting caller: it never escapes from the handler', async () => {
    const escaped: unknown[] = [];
    const onUncaught = (err: unknown) => escaped.push(err);
    process.on('uncaughtException', onUncaught);
    try {
      const ex = await exchange((_q, r) => r.end('data: [DONE]\n\n')).answered;
      const relay = relayBody(ex, asResponse(appEnd()), { judge: null, stallMs: STALL_MS }, () => {
        throw new Error('the judge could not read a frame');
      });
      await assert.rejects(relay, /the judge could not read a frame/);
    } finally {
      process.off('uncaughtException', onUncaught);
    }
    assert.deepEqual(escaped, []);
  });

  it('settles once, not dropped, when the body ends', async () => {
    const ex = await exchange((_q, r) => r.end('b')).answered;
    const res = appEnd();
    const calls: boolean[] = [];
    await relayBody(ex, asResponse(res), { judge: null, head: [Buffer.from('a')], stallMs: STALL_MS }, (dropped) => calls.push(dropped));
    assert.deepEqual([calls, res.text()], [[false], 'ab']);
  });

  it('sends status and headers at once when no byte of the body has come yet', async () => {
    let release = () => {};
    const held = new Promise<void>((r) => (release = r));
    const front = createServer((_req, res) => {
      void exchange((_q, r) => {
        r.writeHead(200, { 'content-type': 'text/event-stream' });
        r.flushHeaders();
        void held.then(() => r.end('data: late\n\n'));
      }).answered.then((ex) => {
        res.writeHead(ex.statusCode, { 'content-type': 'text/event-stream' });
        return relayBody(ex, res, { judge: null, stallMs: STALL_MS }, () => {});
      });
    });
    front.listen(0, '127.0.0.1');
    await once(front, 'listening');
    try {
      const url = `http://127.0.0.1:${(front.address() as AddressInfo).port}/`;
      const answer = await agent.request({ origin: url, path: '/', method: 'POST', body: '{}' });
      assert.equal(answer.statusCode, 200, 'the headers came while the upstream still held its body');
      release();
      assert.equal(await answer.body.text(), 'data: late\n\n');
    } finally {
      front.closeAllConnections();
      front.close();
    }
  });

  it(
    'closes an app that stops reading for the stall time, and stops the upstream: the engine does not work for a reader that is gone',
    { timeout: 10_000 },
    async () => {
      let upstreamClosed!: Promise<unknown>;
      const ex = await exchange((_q, r) => {
        upstreamClosed = once(r, 'close');
        // Far more than the app end and the sockets between can hold; never ended.
        for (let i = 0; i < 64; i++) r.write(Buffer.alloc(64 * 1024, 0x61));
      }).answered;
      // An app that takes one chunk and never another: its buffer stays full.
      const stalled = new Writable({ highWaterMark: 1024, write() {} });
      const settled: { dropped: boolean; stalledMs: number | null }[] = [];
      await relayBody(ex, asResponse(stalled), { judge: null, stallMs: 50 }, (dropped, stalledMs) => settled.push({ dropped, stalledMs }));
      // Settled once, as the app leaving (not dropped), with the stall that closed it.
      assert.deepEqual({ settled, closed: stalled.destroyed }, { settled: [{ dropped: false, stalledMs: 50 }], closed: true });
      await upstreamClosed;
    },
  );

  it('keeps relaying to an app that reads as it comes, after a burst that found its socket full many times at once', async () => {
    const TICKS = 25;
    let burstSent!: Promise<void>;
    const front = createServer((req, res) => {
      req.resume();
      void (async () => {
        const ex = await exchange((_q, r) => {
          r.writeHead(200, { 'content-type': 'text/event-stream' });
          // 128 KiB with the headers: queued until the relay takes the body, then written in one go.
          burstSent = new Promise((sent) => {
            for (let i = 0; i < 32; i++) r.write(Buffer.alloc(4096, 0x61), i === 31 ? () => sent() : undefined);
          });
          let n = 0;
          const tick = setInterval(() => {
            r.write('data: x\n\n');
            if ((n += 1) === TICKS) {
              clearInterval(tick);
              r.end();
            }
          }, 100);
        }).answered;
        await burstSent;
        await new Promise((resolve) => setImmediate(resolve));
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        // A second and a half: the stream runs 2.5 s, so a wait left over from the burst would cut it.
        await relayBody(ex, res, { judge: null, stallMs: 1_500 }, () => {});
      })();
    });
    front.listen(0, '127.0.0.1');
    await once(front, 'listening');
    try {
      const answer = await agent.request({ origin: `http://127.0.0.1:${(front.address() as AddressInfo).port}`, path: '/', method: 'POST', body: '{}' });
      const body = await answer.body.arrayBuffer();
      assert.equal(body.byteLength, 32 * 4096 + TICKS * 'data: x\n\n'.length);
    } finally {
      front.closeAllConnections();
      front.close();
    }
  });

  it(
    'closes an app that stops reading with the end of the answer still waiting for it, though no write found its socket full',
    { timeout: 30_000 },
    async () => {
      let frontRes: ServerResponse | null = null;
      let cleanUp = () => {};
      const relayed = new Promise<boolean>((settledWith) => {
        const front = createServer((req, res) => {
          req.resume();
          frontRes = res;
          void exchange((_q, r) => {
            r.writeHead(200, { 'content-type': 'text/event-stream' });
            // 1 KiB at a time until the app's kernel buffers are full and a little waits in the
            // response's own buffer, less than the 16 KiB that makes a write answer false; then the end.
            const more = () => {
              if (frontRes!.writableLength > 0) return r.end();
              r.write(Buffer.alloc(1024, 0x61), () => setImmediate(more));
            };
            more();
          }).answered.then((ex) => {
            res.writeHead(200, { 'content-type': 'text/event-stream' });
            return relayBody(ex, res, { judge: null, stallMs: 200 }, (dropped) => settledWith(dropped));
          });
        });
        front.listen(0, '127.0.0.1', () => {
          const app = connect((front.address() as AddressInfo).port, '127.0.0.1');
          app.write('POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 2\r\n\r\n{}');
          // Alive on the wire, reading nothing.
          app.pause();
          cleanUp = () => {
            app.destroy();
            front.closeAllConnections();
            front.close();
          };
        });
      });
      try {
        await relayed;
        assert.equal(frontRes!.destroyed, true, "the app's connection was closed");
      } finally {
        cleanUp();
      }
    },
  );

  it("settles an app's leaving as not dropped when the walk's own close listener aborted the engine first", async () => {
    const signal = new CallerSignal();
    const ex = await exchange((_q, r) => r.write('first'), { signal }).answered;
    const app = appEnd();
    // As pool-proxy's caller line does: its listener on the response's close is there before the relay's, and aborts at once.
    app.once('close', () => signal.abort());
    const calls: boolean[] = [];
    const relayed = relayBody(ex, asResponse(app), { judge: null, stallMs: STALL_MS }, (dropped) => calls.push(dropped));
    setImmediate(() => app.destroy());
    await relayed;
    assert.deepEqual(calls, [false]);
  });

  it('settles dropped when the upstream drops part-way', async () => {
    const ex = await exchange((_q, r) => {
      r.writeHead(200, { 'content-length': '100' });
      r.write('par', () => setTimeout(() => r.socket?.destroy(), 10));
    }).answered;
    const calls: boolean[] = [];
    await relayBody(ex, asResponse(appEnd()), { judge: null, stallMs: STALL_MS }, (dropped) => calls.push(dropped));
    assert.deepEqual(calls, [true]);
  });
});
