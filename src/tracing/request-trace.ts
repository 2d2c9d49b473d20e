/**
 * One proxied request's part in a trace. Three cases:
 * - no traceparent arrived and nothing is exported: no trace; nothing is sent on, and the row's
 *   traceId is null;
 * - a traceparent arrived and nothing is exported: the Hub takes no part, so it passes the app's
 *   header on unchanged to each engine or peer, and records its trace id on the row;
 * - spans are exported (OTEL_EXPORTER_OTLP_ENDPOINT): a server span for the request, a child client
 *   span for each attempt, and each engine or peer is told the attempt's span as its parent. With no
 *   traceparent from the app the Hub starts the trace; with one, the app's sampled flag decides
 *   whether these spans are exported (parent-based sampling), and is passed on as it came.
 */
import type { Clock } from '../util/clock.js';
import type { FinishedSpan, SpanAttributes, SpanSink } from './span.js';
import { formatTraceParent, type IncomingTrace, type TraceIds } from './trace-context.js';

/** What ends an attempt span. */
export interface AttemptEnd {
  /** 'local' or the peer's MagicDNS name. */
  readonly node: string;
  /** The engine kind that answered (a peer names its own); null when unknown. */
  readonly backend: string | null;
  readonly status: number | null;
  /** Why the walk moved on from it, in the routing log's words; null when the walk ended on it. */
  readonly failedOver: string | null;
}

/** What ends the request's span: the routing-log row's own facts. */
export interface RequestEnd {
  readonly requestId: string;
  readonly outcome: 'served' | 'failed';
  /** The node that served: 'local' or a peer's name; null when none answered. */
  readonly node: string | null;
  readonly backend: string | null;
  readonly status: number | null;
  /** 1-based attempt that settled the row; null when none. */
  readonly attempt: number | null;
  readonly failedOver: number;
  readonly reason: string | null;
}

export interface RequestTraceOptions {
  readonly incoming: IncomingTrace | null;
  /** null: nothing is exported. */
  readonly sink: SpanSink | null;
  readonly clock: Clock;
  readonly ids: TraceIds;
  /** The server span's name, e.g. POST /v1/chat/completions. */
  readonly name: string;
  readonly attributes: SpanAttributes;
}

interface OpenAttempt {
  readonly spanId: string;
  readonly startMs: number;
  readonly index: number;
}

export class RequestTrace {
  /** The trace the request belongs to; null when it belongs to none. */
  readonly traceId: string | null;
  readonly #incoming: IncomingTrace | null;
  readonly #sink: SpanSink | null;
  readonly #clock: Clock;
  readonly #ids: TraceIds;
  readonly #name: string;
  readonly #attributes: SpanAttributes;
  /** This request's span; null when the Hub records none. */
  readonly #spanId: string | null;
  readonly #sampled: boolean;
  readonly #startMs: number;
  #attempt: OpenAttempt | null = null;
  #requestId: string | null = null;
  #ended = false;

  constructor(opts: RequestTraceOptions) {
    this.#incoming = opts.incoming;
    this.#sink = opts.sink;
    this.#clock = opts.clock;
    this.#ids = opts.ids;
    this.#name = opts.name;
    this.#attributes = opts.attributes;
    this.#startMs = opts.clock.nowMs();
    this.#sampled = opts.incoming?.parent.sampled ?? true;
    this.#spanId = opts.sink === null ? null : opts.ids.spanId();
    this.traceId = opts.incoming?.parent.traceId ?? (opts.sink === null ? null : opts.ids.traceId());
  }

  /** The request id, once the routing log has settled on it: every span names it. */
  setRequestId(requestId: string): void {
    this.#requestId = requestId;
  }

  /** Starts the span of attempt `index` (0-based) and returns the headers that tell the engine or peer about the trace. */
  attemptStarted(index: number): Record<string, string> {
    if (this.traceId === null) return {};
    const state = this.#incoming?.state ?? null;
    let traceparent: string;
    if (this.#spanId === null) traceparent = this.#incoming!.header;
    else {
      const spanId = this.#ids.spanId();
      this.#attempt = { spanId, startMs: this.#clock.nowMs(), index };
      traceparent = formatTraceParent(this.traceId, spanId, this.#sampled);
    }
    return state === null ? { traceparent } : { traceparent, tracestate: state };
  }

  /** Ends the attempt in progress. */
  attemptEnded(end: AttemptEnd): void {
    const at = this.#attempt;
    this.#attempt = null;
    if (at === null || this.#spanId === null) return;
    this.#emit({
      spanId: at.spanId,
      parentSpanId: this.#spanId,
      name: `forward to ${end.node}`,
      kind: 'client',
      startMs: at.startMs,
      attributes: {
        ...this.#attributes,
        ...(this.#requestId === null ? {} : { 'hub_pool.request_id': this.#requestId }),
        'hub_pool.attempt': at.index + 1,
        'hub_pool.node': end.node,
        ...(end.backend === null ? {} : { 'hub_pool.backend': end.backend }),
        ...(end.status === null ? {} : { 'http.response.status_code': end.status }),
        ...(end.failedOver === null ? {} : { 'hub_pool.failed_over': end.failedOver }),
      },
      error: end.failedOver,
    });
  }

  /** Ends the request's span, once. */
  ended(end: RequestEnd): void {
    if (this.#ended) return;
    this.#ended = true;
    if (this.#spanId === null) return;
    this.#emit({
      spanId: this.#spanId,
      parentSpanId: this.#incoming?.parent.parentId ?? null,
      name: this.#name,
      kind: 'server',
      startMs: this.#startMs,
      attributes: {
        ...this.#attributes,
        'hub_pool.request_id': end.requestId,
        'hub_pool.outcome': end.outcome,
        'hub_pool.failed_over': end.failedOver,
        ...(end.node === null ? {} : { 'hub_pool.node': end.node }),
        ...(end.backend === null ? {} : { 'hub_pool.backend': end.backend }),
        ...(end.status === null ? {} : { 'http.response.status_code': end.status }),
        ...(end.attempt === null ? {} : { 'hub_pool.attempt': end.attempt }),
      },
      error: end.outcome === 'failed' ? (end.reason ?? 'failed') : null,
    });
  }

  #emit(span: Omit<FinishedSpan, 'traceId' | 'endMs'>): void {
    if (!this.#sampled || this.#sink === null || this.traceId === null) return;
    this.#sink.add({ ...span, traceId: this.traceId, endMs: this.#clock.nowMs() });
  }
}
