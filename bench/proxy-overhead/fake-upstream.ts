/**
 * The fake engine the proxy-overhead benchmark points every target at: a bare node:http server
 * that answers just enough of the OpenAI-compatible API for the Hub to treat it as a llama.cpp
 * server, with every answer built once at start so its own cost per request stays as low and
 * as constant as a Node server allows.
 *
 *   GET  /v1/models            one model, bench-model, owned_by llamacpp
 *   POST /v1/chat/completions  a fixed chat.completion, or with "stream": true in the body
 *                              STREAM_EVENTS SSE chunks then `data: [DONE]`, written back to back
 *
 * Run as its own process: `node dist/bench/proxy-overhead/fake-upstream.js [--port N]`. It
 * prints one line, `listening <port>`, once it accepts connections.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
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
      if (STREAM_TRUE.test(body.toString('latin1'))) {
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
