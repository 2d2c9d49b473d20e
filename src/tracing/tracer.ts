/**
 * Hands each proxied request its RequestTrace: with the exporter when OTLP export is configured,
 * without one otherwise (then a request with no traceparent costs nothing but a header lookup).
 */
import type { Clock } from '../util/clock.js';
import { RequestTrace } from './request-trace.js';
import type { SpanAttributes, SpanSink } from './span.js';
import { randomTraceIds, readIncomingTrace, type IncomingTraceHeaders, type TraceIds } from './trace-context.js';

export interface TracerOptions {
  /** null: OTLP export is off. */
  readonly sink: SpanSink | null;
  readonly clock: Clock;
  readonly ids?: TraceIds;
}

export class Tracer {
  readonly #sink: SpanSink | null;
  readonly #clock: Clock;
  readonly #ids: TraceIds;

  constructor(opts: TracerOptions) {
    this.#sink = opts.sink;
    this.#clock = opts.clock;
    this.#ids = opts.ids ?? randomTraceIds;
  }

  /** Whether spans are recorded and exported. */
  get exporting(): boolean {
    return this.#sink !== null;
  }

  /** The trace of a request that arrived with `headers`; its span starts now. */
  begin(headers: IncomingTraceHeaders, name: string, attributes: SpanAttributes): RequestTrace {
    return new RequestTrace({ incoming: readIncomingTrace(headers), sink: this.#sink, clock: this.#clock, ids: this.#ids, name, attributes });
  }
}
