/**
 * The engine's HTTP side (node:http): Ollama's native routes, its /v1 layer, and Ollama's plain
 * 404 for anything else. When `record` is on, the exact bytes of every response are kept so a
 * test can compare what a proxy relayed with what the engine sent.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Exchange, readBody, sendJson, sendRaw } from '../sim/http-io.js';
import type { LlamaCore } from './core.js';
import { NATIVE_ROUTES, type RouteHandler } from './ollama-routes.js';
import { modelRoute, OPENAI_ROUTES } from './openai-routes.js';

export interface RecordedExchange {
  readonly method: string;
  readonly path: string;
  readonly requestBody: Buffer;
  readonly status: number;
  /** Exactly the bytes written as the response body. */
  readonly body: Buffer;
  /** Whether the response was complete (false: the connection closed first). */
  readonly complete: boolean;
}

const ROUTES: ReadonlyMap<string, RouteHandler> = new Map(Object.entries({ ...NATIVE_ROUTES, ...OPENAI_ROUTES }));
const MAX_RECORDED = 200;

export class EngineServer {
  readonly #core: LlamaCore;
  readonly #server: Server;
  readonly #recorded: RecordedExchange[] = [];
  readonly #record: boolean;

  constructor(core: LlamaCore, opts: { record?: boolean } = {}) {
    this.#core = core;
    this.#record = opts.record === true;
    this.#server = createServer({ noDelay: true }, (req, res) => {
      void this.#serve(req, res);
    });
  }

  async listen(port: number, host: string): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(port, host, () => {
        this.#server.off('error', reject);
        resolve();
      });
    });
    return (this.#server.address() as AddressInfo).port;
  }

  /** Responses recorded so far (only with `record`), oldest first. */
  recorded(): RecordedExchange[] {
    return [...this.#recorded];
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }

  async #serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const ex = new Exchange(req, res);
    try {
      const body = await readBody(req);
      if (this.#record) this.#tap(req, res, body);
      const method = req.method === 'HEAD' ? 'GET' : (req.method ?? 'GET');
      const path = ex.url.pathname;
      const handler = ROUTES.get(`${method} ${path}`);
      if (handler !== undefined) return await handler(this.#core, ex, body);
      if (method === 'GET' && path.startsWith('/v1/models/')) return modelRoute(this.#core, ex, decodeURIComponent(path.slice('/v1/models/'.length)));
      sendRaw(res, 404, '404 page not found', 'text/plain');
    } catch (err) {
      if (!res.headersSent) sendJson(res, 500, { error: err instanceof Error ? err.message : String(err) });
      else res.destroy();
    }
  }

  /** Copies every byte written to `res` into a record kept when the exchange ends. */
  #tap(req: IncomingMessage, res: ServerResponse, requestBody: Buffer): void {
    const chunks: Buffer[] = [];
    const keep = (chunk: unknown): void => {
      if (typeof chunk === 'string') chunks.push(Buffer.from(chunk, 'utf8'));
      else if (chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk));
    };
    const write = res.write.bind(res) as (...args: unknown[]) => boolean;
    const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
    res.write = ((...args: unknown[]) => {
      keep(args[0]);
      return write(...args);
    }) as ServerResponse['write'];
    res.end = ((...args: unknown[]) => {
      if (typeof args[0] !== 'function') keep(args[0]);
      return end(...args);
    }) as ServerResponse['end'];
    res.once('close', () => {
      this.#recorded.push({
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        requestBody,
        status: res.statusCode,
        body: Buffer.concat(chunks),
        complete: res.writableFinished,
      });
      if (this.#recorded.length > MAX_RECORDED) this.#recorded.shift();
    });
  }
}
