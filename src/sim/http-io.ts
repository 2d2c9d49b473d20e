/**
 * Small node:http helpers: body reading, JSON answers, streamed writes with backpressure, and
 * the abort signal that tells a generation its client has gone.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export type ParsedBody = { kind: 'missing' } | { kind: 'invalid'; message: string } | { kind: 'ok'; value: unknown };

export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export function parseJson(body: Buffer): ParsedBody {
  if (body.length === 0) return { kind: 'missing' };
  try {
    return { kind: 'ok', value: JSON.parse(body.toString('utf8')) as unknown };
  } catch (err) {
    return { kind: 'invalid', message: err instanceof Error ? err.message : String(err) };
  }
}

export const JSON_TYPE = 'application/json; charset=utf-8';

export function sendJson(res: ServerResponse, status: number, body: unknown, contentType = JSON_TYPE): void {
  sendRaw(res, status, JSON.stringify(body), contentType);
}

export function sendRaw(res: ServerResponse, status: number, text: string, contentType: string): void {
  if (res.headersSent || res.destroyed) return;
  const payload = Buffer.from(text, 'utf8');
  res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': payload.length });
  res.end(payload);
}

/** Writes one streamed piece, waiting for the socket to drain when the client reads slower than we write. */
export async function writeChunk(res: ServerResponse, text: string): Promise<void> {
  if (res.destroyed) return;
  if (!res.write(text)) {
    await new Promise<void>((resolve) => {
      const done = (): void => {
        res.off('drain', done);
        res.off('close', done);
        resolve();
      };
      res.on('drain', done);
      res.on('close', done);
    });
  }
}

export function startStream(res: ServerResponse, contentType: string): void {
  if (res.headersSent) return;
  res.writeHead(200, { 'Content-Type': contentType });
  res.flushHeaders();
}

/**
 * One exchange's lifetime: `signal` aborts when the client hangs up before the answer is complete.
 * A close the simulator causes itself (the `cut` fault) is marked first so it is not counted as
 * the client's abort.
 */
export class Exchange {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly url: URL;
  #controller = new AbortController();
  #deliberate = false;
  #onAbort: Array<() => void> = [];

  constructor(req: IncomingMessage, res: ServerResponse) {
    this.req = req;
    this.res = res;
    this.url = new URL(req.url ?? '/', 'http://sim.invalid');
    res.on('close', () => {
      if (res.writableFinished || this.#deliberate) return;
      this.#controller.abort(new DOMException('client closed the connection', 'AbortError'));
      for (const cb of this.#onAbort) cb();
    });
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Runs `cb` once if the client hangs up early. */
  onClientAbort(cb: () => void): void {
    this.#onAbort.push(cb);
  }

  /**
   * Drops the connection mid-body on purpose, as an engine that dies part-way would. What was
   * already written is flushed first, so the client sees content and then a connection that ends
   * without the chunked terminator.
   */
  destroyDeliberately(): void {
    this.#deliberate = true;
    const socket = this.res.socket;
    if (socket === null) return void this.res.destroy();
    socket.end(() => socket.destroy());
  }

  /** Ends a streamed body without its final frame, as the `cut` fault asks for on Ollama. */
  endDeliberately(): void {
    this.#deliberate = true;
    this.res.end();
  }
}

export function isAbortError(err: unknown): boolean {
  return err instanceof Error && err.name === 'AbortError';
}
