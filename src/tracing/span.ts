/**
 * A finished span as the Hub records it: ids, a name, times and metadata attributes. Never a
 * prompt, a body or an engine's message text, like the routing log it mirrors.
 */
export type SpanKind = 'server' | 'client';

export type SpanAttributes = Readonly<Record<string, string | number | boolean>>;

export interface FinishedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** The span this one is a child of; null for a trace's root. */
  readonly parentSpanId: string | null;
  readonly name: string;
  readonly kind: SpanKind;
  /** Epoch milliseconds, fractional. */
  readonly startMs: number;
  readonly endMs: number;
  readonly attributes: SpanAttributes;
  /** Why the span's work failed, in a few words; null when it did not. */
  readonly error: string | null;
}

/** Where finished spans go (the OTLP exporter). */
export interface SpanSink {
  add(span: FinishedSpan): void;
}
