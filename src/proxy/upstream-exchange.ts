/**
 * One request to an engine or a peer, as an undici dispatch handler: its status and headers
 * arrive as a promise, and its body goes, chunk by chunk, to the one consumer that takes it
 * (relay-body.ts: read whole up to a bound, relay to the app, or drop). undici's `request()`
 * wraps every answer in a Readable (an AsyncResource, a stream state, a pipe to the app); with
 * this handler instead the Hub spent 0.85x the CPU per non-streamed request of the same build on
 * `request()`, alternated against the same fake upstream (bench/README.md, "the walk on
 * undici's dispatch API").
 *
 * Chunks that arrive before a consumer takes the body (undici parses a small answer's body in
 * the same pass as its headers) are queued, up to UNCLAIMED_BYTES_MAX; past it the exchange
 * pauses until a consumer comes.
 */
import type { Dispatcher } from 'undici';
import type { CallerSignal } from './walk-caller.js';

/**
 * What a body may queue before anyone takes it: 64 KiB, the high-water mark of the Readable
 * undici's request() gives, so an answer that small still completes unclaimed, and its
 * connection stays reusable when the walk drops it (a status it fails over from).
 */
const UNCLAIMED_BYTES_MAX = 64 * 1024;

export type UpstreamHeaders = Record<string, string | string[] | undefined>;

/** Where a body's chunks go; exactly one of end and error is called, once. */
export interface BodySink {
  /** One chunk; returning false pauses the exchange until `resume()`. */
  data(chunk: Buffer): boolean;
  end(): void;
  error(err: unknown): void;
}

export interface ExchangeOptions {
  readonly origin: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  /** Aborts the exchange when the caller leaves, at any stage. */
  readonly signal: CallerSignal;
  readonly headersTimeoutMs: number;
  /** The longest gap between body chunks; 0 for none. */
  readonly bodyTimeoutMs: number;
}

type BodyEnd = { readonly kind: 'end' } | { readonly kind: 'error'; readonly error: unknown };

export class UpstreamExchange implements Dispatcher.DispatchHandler {
  readonly #signal: CallerSignal;
  #controller: Dispatcher.DispatchController | null = null;
  #resolveHead!: (exchange: this) => void;
  #rejectHead!: (err: unknown) => void;
  #headSettled = false;
  #sink: BodySink | null = null;
  /** Chunks no consumer has taken yet, and their size. */
  #queued: Buffer[] = [];
  #queuedBytes = 0;
  /** How the body ended, kept until a consumer takes it; null while it is still arriving. */
  #bodyEnd: BodyEnd | null = null;
  #done = false;
  /** The answer's final (non-1xx) status and its headers; set when `answered` resolves. */
  statusCode = 0;
  headers: UpstreamHeaders = {};
  /** Resolves once status and headers are in; rejects with the transport's error (undici's codes) or the caller's abort. */
  readonly answered: Promise<this>;

  constructor(dispatcher: Dispatcher, opts: ExchangeOptions) {
    this.#signal = opts.signal;
    this.answered = new Promise<this>((resolve, reject) => {
      this.#resolveHead = resolve;
      this.#rejectHead = reject;
    });
    if (opts.signal.aborted) {
      this.#finish({ kind: 'error', error: opts.signal.reason });
      return;
    }
    opts.signal.once('abort', this.#onAbort);
    dispatcher.dispatch(
      {
        origin: opts.origin,
        path: opts.path,
        method: 'POST',
        headers: opts.headers,
        body: opts.body,
        headersTimeout: opts.headersTimeoutMs,
        bodyTimeout: opts.bodyTimeoutMs,
      },
      this,
    );
  }

  /** Hands the body to `sink`: what was queued first, then the rest as it comes. */
  take(sink: BodySink): void {
    this.#sink = sink;
    const queued = this.#queued;
    this.#queued = [];
    this.#queuedBytes = 0;
    let wantsMore = true;
    for (const chunk of queued) {
      if (this.#sink !== sink) {
        // The sink let go part-way (a read past its bound): keep the rest for the next one.
        this.#queue(chunk);
        continue;
      }
      if (!sink.data(chunk)) wantsMore = false;
    }
    if (!wantsMore) this.#controller?.pause();
    if (this.#sink !== sink) return;
    if (this.#bodyEnd !== null) this.#deliverEnd(sink, this.#bodyEnd);
    // It may have paused while nobody took the body.
    else if (wantsMore) this.#controller?.resume();
  }

  /** The sink stops taking chunks (from its data(), which then returns false to pause); what arrives is queued for the next. */
  release(): void {
    this.#sink = null;
  }

  /** The answer arrived whole, or failed: nothing more will come over its connection. */
  get finished(): boolean {
    return this.#done;
  }

  resume(): void {
    this.#controller?.resume();
  }

  /** Stops the exchange (its connection is closed); a body that already arrived whole costs nothing. */
  abort(reason: Error): void {
    if (this.#done) return;
    if (this.#controller !== null) this.#controller.abort(reason);
    else this.#finish({ kind: 'error', error: reason });
  }

  // ---- undici's handler -----------------------------------------------------------------

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#signal.aborted) controller.abort(this.#signal.reason!);
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: UpstreamHeaders): void {
    // 1xx informational heads precede the answer's own.
    if (statusCode < 200) return;
    this.#headSettled = true;
    this.statusCode = statusCode;
    this.headers = headers;
    this.#resolveHead(this);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    const sink = this.#sink;
    if (sink === null) {
      if (this.#queue(chunk)) controller.pause();
    } else if (!sink.data(chunk)) controller.pause();
  }

  onResponseEnd(): void {
    this.#finish({ kind: 'end' });
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.#finish({ kind: 'error', error });
  }

  /** Queues an unclaimed chunk; true once the queue is past its bound. */
  #queue(chunk: Buffer): boolean {
    this.#queued.push(chunk);
    this.#queuedBytes += chunk.length;
    return this.#queuedBytes > UNCLAIMED_BYTES_MAX;
  }

  // ---- the end ----------------------------------------------------------------------------

  readonly #onAbort = (): void => this.abort(this.#signal.reason!);

  #finish(end: BodyEnd): void {
    if (this.#done) return;
    this.#done = true;
    this.#signal.off('abort', this.#onAbort);
    if (!this.#headSettled) {
      this.#headSettled = true;
      this.#rejectHead(end.kind === 'error' ? end.error : new Error('the answer ended before its headers'));
      return;
    }
    this.#bodyEnd = end;
    // A sink holds no queue (take() hands it everything first), so the end comes after every chunk.
    if (this.#sink !== null) this.#deliverEnd(this.#sink, end);
  }

  #deliverEnd(sink: BodySink, end: BodyEnd): void {
    this.#sink = null;
    this.#bodyEnd = null;
    if (end.kind === 'end') sink.end();
    else sink.error(end.error);
  }
}
