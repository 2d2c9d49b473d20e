/**
 * The fake engine the proxy-overhead benchmark points every target at: a bare node:http server
 * that answers just enough of the OpenAI-compatible API for the Hub to treat it as a llama.cpp
 * server, with every answer built once at start so its own cost per request stays as low and
 * as constant as a Node server allows.
 *
 *   GET  /v1/models            one model, bench-model, owned_by llamacpp
 *   POST /v1/chat/completions  a fixed chat.completion, or with "stream": true in the body
 *                              STREAM_EVENTS SSE chunks then `data: [DONE]`, written back to back;
 *                              with "bench_token_rate": R as well, a token stream instead: one
 *                              event per write, R a second ("bench_token_events": N of them,
 *                              TOKEN_STREAM_EVENTS by default), the first with the headers
 *
 * Run as its own process: `node dist/bench/proxy-overhead/fake-upstream.js [--port N]`. It
 * prints one line, `listening <port>`, once it accepts connections.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

export const BENCH_MODEL = 'bench-model';
/** SSE chunks in one streamed answer (the issue asks for about 200). */
export const STREAM_EVENTS = 200;
/** The streamed answer goes out in this many socket writes, back to back in one tick. */
export const STREAM_WRITES = 4;

const CREATED = 1_700_000_000;

const MODELS_BODY = Buffer.from(JSON.stringify({ object: 'list', data: [{ id: BENCH_MODEL, object: 'model', owned_by: 'llamacpp', created: CREATED }] }));

export const COMPLETION_BODY = Buffer.from(
  JSON.stringify({
    id: 'chatcmpl-bench',
    object: 'chat.completion',
    created: CREATED,
    model: BENCH_MODEL,
    choices: [{ index: 0, message: { role: 'assistant', content: 'Hello from the benchmark upstream.' }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 9, completion_tokens: 6, total_tokens: 15 },
  }),
);

function sseEvent(delta: Record<string, string>, finishReason: string | null): string {
  const chunk = {
    id: 'chatcmpl-bench',
    object: 'chat.completion.chunk',
    created: CREATED,
    model: BENCH_MODEL,
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  };
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

/** The streamed answer, pre-split into STREAM_WRITES buffers of whole events. */
export const STREAM_PARTS: readonly Buffer[] = (() => {
  const events: string[] = [];
  for (let i = 0; i < STREAM_EVENTS; i++) {
    if (i === 0) events.push(sseEvent({ role: 'assistant', content: '' }, null));
    else if (i === STREAM_EVENTS - 1) events.push(sseEvent({}, 'stop'));
    else events.push(sseEvent({ content: `tok${i} ` }, null));
  }
  events.push('data: [DONE]\n\n');
  const per = Math.ceil(events.length / STREAM_WRITES);
  const parts: Buffer[] = [];
  for (let i = 0; i < events.length; i += per) parts.push(Buffer.from(events.slice(i, i + per).join('')));
  return parts;
})();

/** Events in one token stream when the request does not say (bench_token_events). */
export const TOKEN_STREAM_EVENTS = 100;
/** Bounds on what a request may ask of a token stream, so a typo cannot tie the upstream up. */
const MAX_TOKEN_RATE = 10_000;
const MAX_TOKEN_EVENTS = 100_000;

/** One token event (a content delta), the last one (finish_reason stop) and [DONE], each its own write. */
export function tokenEvent(i: number, events: number): Buffer {
  if (i === events - 1) return Buffer.from(sseEvent({}, 'stop'));
  return Buffer.from(sseEvent(i === 0 ? { role: 'assistant', content: '' } : { content: `tok${i} ` }, null));
}
const TOKEN_DONE = Buffer.from('data: [DONE]\n\n');

/**
 * A token stream as a fast GPU engine writes one: every event its own socket write, one every
 * 1000/rate ms, the first right behind the headers (so time to the first event is the proxy's,
 * not a prefill's). Stops writing if the caller goes away.
 */
function writeTokenStream(res: ServerResponse, rate: number, events: number): void {
  res.writeHead(200, SSE_HEADERS);
  const gapMs = 1000 / rate;
  const started = performance.now();
  let i = 0;
  const next = (): void => {
    if (res.destroyed) return;
    res.write(tokenEvent(i, events));
    i += 1;
    if (i === events) {
      res.end(TOKEN_DONE);
      return;
    }
    // Paced against the start, so timer lateness does not add up over a stream.
    setTimeout(next, Math.max(0, started + i * gapMs - performance.now()));
  };
  next();
}

const TOKEN_RATE = /"bench_token_rate"\s*:\s*(\d+)/;
const TOKEN_EVENTS = /"bench_token_events"\s*:\s*(\d+)/;

const JSON_HEADERS = { 'content-type': 'application/json', 'content-length': String(COMPLETION_BODY.length) };
const MODELS_HEADERS = { 'content-type': 'application/json', 'content-length': String(MODELS_BODY.length) };
const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };
const NOT_FOUND = Buffer.from('{"error":{"message":"not found","type":"invalid_request_error"}}');

const STREAM_TRUE = /"stream"\s*:\s*true/;

function handle(req: IncomingMessage, res: ServerResponse): void {
  if (req.method === 'GET' && req.url === '/v1/models') {
    res.writeHead(200, MODELS_HEADERS);
    res.end(MODELS_BODY);
    return;
  }
  if (req.method === 'POST' && req.url === '/v1/chat/completions') {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
      const text = body.toString('latin1');
      const rate = Number(TOKEN_RATE.exec(text)?.[1] ?? 0);
      if (rate > 0 && STREAM_TRUE.test(text)) {
        const events = Number(TOKEN_EVENTS.exec(text)?.[1] ?? TOKEN_STREAM_EVENTS);
        writeTokenStream(res, Math.min(rate, MAX_TOKEN_RATE), Math.max(1, Math.min(events, MAX_TOKEN_EVENTS)));
      } else if (STREAM_TRUE.test(text)) {
        res.writeHead(200, SSE_HEADERS);
        const last = STREAM_PARTS.length - 1;
        for (let i = 0; i < last; i++) res.write(STREAM_PARTS[i]);
        res.end(STREAM_PARTS[last]);
      } else {
        res.writeHead(200, JSON_HEADERS);
        res.end(COMPLETION_BODY);
      }
    });
    return;
  }
  req.resume();
  res.writeHead(404, { 'content-type': 'application/json', 'content-length': String(NOT_FOUND.length) });
  res.end(NOT_FOUND);
}

function main(): void {
  const at = process.argv.indexOf('--port');
  const port = at >= 0 ? Number(process.argv[at + 1]) : 0;
  const server = createServer(handle);
  // Keep idle keep-alive connections well past any pause between benchmark runs, so no
  // target pays for reconnecting where another does not.
  server.keepAliveTimeout = 120_000;
  server.headersTimeout = 125_000;
  server.listen(port, '127.0.0.1', () => {
    process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
  });
  const stop = () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

// Run only as a program: run.ts imports the constants above without starting a server.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) main();
