/**
 * vLLM ends a failed stream with an error frame and then `data: [DONE]`. When the error frame is
 * longer than the judge's tail and the [DONE] reaches the Hub in two reads (`data: [DO`, then
 * `NE]`), the stream is still the engine's failure: a truncated-upstream fault on the node. Before,
 * the first part of the [DONE] opened a line that did not yet end in ']', the tail let go of the
 * error frame's start, and the stream was settled as a sound answer.
 *
 * A loopback engine writes the stream in parts, each only once the app has read every byte before
 * it, so each cut is a cut between two of the Hub's socket reads.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { STREAM_TAIL_BYTES } from './output-check.js';
import { ROUTED_ROUTES } from './route-table.js';
import { localCandidate, startWalkApp, walkDeps, type WalkApp } from './walk.fixture.js';
import type { BodyFault, WalkDeps, WalkSettled } from './walk-types.js';

const MODEL = 'served-model';
const chatRoute = ROUTED_ROUTES.find((r) => r.path === '/v1/chat/completions')!;

const sse = (doc: unknown) => `data: ${typeof doc === 'string' ? doc : JSON.stringify(doc)}\n\n`;
const delta = (content: string) => sse({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content }, finish_reason: null }] });

const FIRST = delta('hi');
/** Twice the tail: no read that ends inside [DONE] leaves the error frame's start within the last STREAM_TAIL_BYTES. */
const LONG_ERROR = sse({ error: { message: 'x'.repeat(2 * STREAM_TAIL_BYTES), type: 'InternalServerError', code: 500 } });
/** A frame as long, but an answer: the same cuts must not make it a fault. */
const LONG_ANSWER = delta('y'.repeat(2 * STREAM_TAIL_BYTES));
const DONE = sse('[DONE]');

/** Where the long frame is cut (from its start), as far as the cuts of the tests reach into it. */
const FRAME_CUTS = [0, 1, STREAM_TAIL_BYTES, 'last byte'] as const;
/** Every place inside `data: [DONE]\n\n`. */
const DONE_CUTS = Array.from({ length: DONE.length - 1 }, (_, i) => i + 1);

/** The stream in three parts: up to the cut in the long frame, from there to the cut in [DONE], the rest. */
function parts(frame: string, frameCut: (typeof FRAME_CUTS)[number], doneCut: number): string[] {
  const at = frameCut === 'last byte' ? frame.length - 1 : frameCut;
  return [FIRST + frame.slice(0, at), frame.slice(at) + DONE.slice(0, doneCut), DONE.slice(doneCut)];
}

describe('an error frame longer than the tail, then a [DONE] split between two reads', () => {
  let engine: Server;
  let engineUrl: string;
  /** The parts the engine writes for the next request. */
  let script: string[] = [];
  /** Resolves once the app has read `bytes` bytes of the answer. */
  let appRead: (bytes: number) => Promise<void> = () => Promise.resolve();
  let app: WalkApp;
  let deps: WalkDeps;
  let settledNext: ((s: WalkSettled) => void) | null = null;

  before(async () => {
    engine = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        void (async () => {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          let sent = 0;
          for (const part of script) {
            res.write(part);
            sent += Buffer.byteLength(part);
            await appRead(sent);
          }
          res.end();
        })();
      });
    });
    await new Promise<void>((resolve) => engine.listen(0, '127.0.0.1', resolve));
    engineUrl = `http://127.0.0.1:${(engine.address() as AddressInfo).port}`;
    deps = walkDeps({ observers: [{ onSettled: (s) => settledNext?.(s) }] });
    const vllm = { ...localCandidate('vllm-1', engineUrl), engine: 'vllm' as const };
    app = await startWalkApp(deps, () => ({ route: chatRoute, model: MODEL, stream: true, order: [vllm] }));
  });
  after(async () => {
    await app.close();
    await deps.dispatcher.close();
    engine.closeAllConnections();
    await new Promise<void>((resolve) => engine.close(() => resolve()));
  });

  /** Streams `written` through a walk, reading it part by part; what the app got and how the walk settled. */
  async function stream(written: string[]): Promise<{ got: string; bodyFault: BodyFault | null }> {
    script = written;
    const got: Buffer[] = [];
    let gotBytes = 0;
    const waiting: { bytes: number; resolve: () => void }[] = [];
    appRead = (bytes) => new Promise<void>((resolve) => (gotBytes >= bytes ? resolve() : waiting.push({ bytes, resolve })));
    const settled = new Promise<WalkSettled>((resolve) => (settledNext = resolve));
    const res = await request(`${app.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    for await (const c of res.body as AsyncIterable<Buffer>) {
      got.push(c);
      gotBytes += c.length;
      for (const w of waiting.filter((w) => gotBytes >= w.bytes)) {
        waiting.splice(waiting.indexOf(w), 1);
        w.resolve();
      }
    }
    return { got: Buffer.concat(got).toString(), bodyFault: (await settled).bodyFault };
  }

  for (const frameCut of FRAME_CUTS)
    for (const doneCut of DONE_CUTS)
      it(`is a truncated-upstream fault: error frame cut at ${frameCut}, [DONE] cut after ${JSON.stringify(DONE.slice(0, doneCut))}`, async () => {
        const written = parts(LONG_ERROR, frameCut, doneCut);
        const { got, bodyFault } = await stream(written);
        assert.equal(got, written.join(''), 'every byte went to the app as the engine wrote it');
        assert.deepEqual(bodyFault, { kind: 'output', fault: 'truncated-upstream' });
      });

  for (const doneCut of DONE_CUTS)
    it(`is a sound answer when the long frame is text: [DONE] cut after ${JSON.stringify(DONE.slice(0, doneCut))}`, async () => {
      const { bodyFault } = await stream(parts(LONG_ANSWER, 1, doneCut));
      assert.equal(bodyFault, null);
    });
});
