/**
 * Sends finished spans to an OTLP/HTTP collector as JSON (POST <endpoint>/v1/traces), in batches,
 * off the request path: add() only queues; the Hub's background timer calls flush(). The queue is
 * bounded, so a collector that is down costs memory up to MAX_QUEUED_SPANS and then drops spans,
 * counted and reported, never the Hub. Bounds and the export timeout are the OpenTelemetry SDK's
 * batch span processor and OTLP exporter defaults.
 */
import { IDLE } from '../util/background.js';
import { request } from '../util/undici-lean.js';
import type { Dispatcher } from 'undici';
import { otlpTraceBody, type TraceResource } from './otlp-body.js';
import type { FinishedSpan, SpanSink } from './span.js';

/** Spans held while waiting for the next export: 2048. */
export const MAX_QUEUED_SPANS = 2048;
/** Spans in one export request: 512. */
export const MAX_EXPORT_BATCH_SPANS = 512;
/** How long one export request may take: 10 s. */
export const EXPORT_TIMEOUT_MS = 10_000;

export interface OtlpExporterOptions {
  /** The traces URL: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, or OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces. */
  readonly url: string;
  /** OTEL_EXPORTER_OTLP_HEADERS: sent with every export (a collector's credential, typically). */
  readonly headers: Readonly<Record<string, string>>;
  readonly resource: TraceResource;
  readonly dispatcher: Dispatcher;
  /** Called when a full batch is waiting, so it goes out before the next tick. */
  readonly onBatchReady?: () => void;
}

export class OtlpExporter implements SpanSink {
  readonly #opts: OtlpExporterOptions;
  #queue: FinishedSpan[] = [];
  #dropped = 0;
  /** The export out now, null when none is: there is at most one (see flush). */
  #exporting: Promise<typeof IDLE | void> | null = null;

  constructor(opts: OtlpExporterOptions) {
    this.#opts = opts;
  }

  add(span: FinishedSpan): void {
    if (this.#queue.length >= MAX_QUEUED_SPANS) {
      this.#dropped += 1;
      return;
    }
    this.#queue.push(span);
    if (this.#queue.length === MAX_EXPORT_BATCH_SPANS) this.#opts.onBatchReady?.();
  }

  /** Spans waiting to be sent. */
  get queued(): number {
    return this.#queue.length;
  }

  /**
   * Sends everything queued, a batch at a time. A batch the collector refuses or that cannot be
   * sent is dropped (spans are for looking at now, not a ledger) and the call rejects with what
   * happened, for the caller to log. With nothing to send it answers IDLE: a quiet tick is no
   * sign a collector that failed is back.
   *
   * The messages carry no span counts: Background logs a repeat of one failure once in five
   * minutes, and a count that moved with the traffic made every tick a new failure (a warning
   * each 5 s while a collector was down, tracing audit 2026-12-07).
   *
   * One export at a time: a call while one is out answers IDLE at once. The timer and every full
   * batch (onBatchReady) call this, and against a collector that takes a request and never
   * answers, each call used to open its own request, holding its batch outside MAX_QUEUED_SPANS
   * for the 10 s timeout: 16 were open at once at 1,000 spans a second (clock audit, 2026-12-07).
   * The export out loops until the queue is empty, so it also sends what the skipped call would
   * have, and spans past the bound are dropped and counted as the bound says.
   */
  flush(): Promise<typeof IDLE | void> {
    if (this.#exporting !== null) return Promise.resolve(IDLE);
    const exporting = this.#export().finally(() => {
      this.#exporting = null;
    });
    this.#exporting = exporting;
    return exporting;
  }

  /**
   * For shutdown: waits for the export out now, then sends what is still queued; a flush alone
   * would answer IDLE while it is out, and the spans of the requests just drained would be cut
   * with it. When that export failed, nothing more is sent: asking the same collector again
   * would add another EXPORT_TIMEOUT_MS to a shutdown already 30 s of drain and 10 s of that
   * export into the supervisor's 45 s (review, 2026-12-07). That export's error is left to
   * whoever started it.
   */
  async finish(): Promise<typeof IDLE | void> {
    const out = this.#exporting;
    if (
      out !== null &&
      (await out.then(
        () => false,
        () => true,
      ))
    )
      return IDLE;
    return this.flush();
  }

  async #export(): Promise<typeof IDLE | void> {
    const dropped = this.#dropped;
    this.#dropped = 0;
    if (this.#queue.length === 0 && dropped === 0) return IDLE;
    const overflow = `spans were dropped: ${MAX_QUEUED_SPANS} were already waiting for the collector`;
    try {
      while (this.#queue.length > 0) {
        const batch = this.#queue.slice(0, MAX_EXPORT_BATCH_SPANS);
        this.#queue = this.#queue.slice(batch.length);
        await this.#send(batch);
      }
    } catch (err) {
      // The count was taken above: said only here, or it is lost while the collector is away,
      // which is when the queue fills.
      if (dropped > 0) throw new Error(`${(err as Error).message}; and ${overflow}`);
      throw err;
    }
    if (dropped > 0) throw new Error(overflow);
  }

  async #send(batch: readonly FinishedSpan[]): Promise<void> {
    const { url, headers, resource, dispatcher } = this.#opts;
    let res: Dispatcher.ResponseData;
    try {
      res = await request(url, {
        method: 'POST',
        dispatcher,
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify(otlpTraceBody(resource, batch)),
        headersTimeout: EXPORT_TIMEOUT_MS,
        bodyTimeout: EXPORT_TIMEOUT_MS,
      });
    } catch (err) {
      throw new Error(`could not send spans to the OTLP collector at ${url}: ${err instanceof Error ? err.message : String(err)}`);
    }
    await res.body.dump();
    if (res.statusCode < 200 || res.statusCode > 299) throw new Error(`the OTLP collector at ${url} refused spans with HTTP ${res.statusCode}`);
  }
}
