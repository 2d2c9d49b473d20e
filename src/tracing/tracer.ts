/**
 * Hands each proxied request its RequestTrace: with the exporter when OTLP export is configured,
 * without one otherwise.
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

  /**
   * The trace of a request that arrived with `headers`; its span starts now. `attributes` is asked
   * for only when the span is recorded. A request with no trace context on a Hub that exports
   * nothing shares one inert trace, so the proxy pays a header lookup and no allocation for it.
   */
  begin(headers: IncomingTraceHeaders, name: string, attributes: () => SpanAttributes): RequestTrace {
    const incoming = readIncomingTrace(headers);
    if (incoming === null && this.#sink === null) return this.#untraced;
    return new RequestTrace({ incoming, sink: this.#sink, clock: this.#clock, ids: this.#ids, name, attributes: this.#sink === null ? {} : attributes() });
  }

  /** Records nothing and sends nothing on (traceId null), so one instance serves every such request. */
  readonly #untraced: RequestTrace = new RequestTrace({ incoming: null, sink: null, clock: { nowMs: () => 0 }, ids: randomTraceIds, name: '', attributes: {} });
}
