/**
 * Finished spans as an OTLP/HTTP JSON export request (ExportTraceServiceRequest in the protobuf
 * JSON mapping, as opentelemetry-proto defines it): ids in hex, times as decimal strings of
 * nanoseconds, integers as strings. Pure.
 */
import type { FinishedSpan } from './span.js';

/** The resource every span comes from: this Hub process. */
export interface TraceResource {
  readonly serviceName: string;
  readonly serviceVersion: string;
  /** The machine's host name. */
  readonly hostName: string;
}

/** opentelemetry-proto's Span.SpanKind and Status.StatusCode numbers. */
const SPAN_KIND = { server: 2, client: 3 } as const;
const STATUS_ERROR = 2;
const STATUS_UNSET = 0;

type AnyValue = { stringValue: string } | { intValue: string } | { doubleValue: number } | { boolValue: boolean };

function anyValue(v: string | number | boolean): AnyValue {
  if (typeof v === 'string') return { stringValue: v };
  if (typeof v === 'boolean') return { boolValue: v };
  return Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v };
}

function attributes(record: Readonly<Record<string, string | number | boolean>>): { key: string; value: AnyValue }[] {
  return Object.entries(record).map(([key, value]) => ({ key, value: anyValue(value) }));
}

/** Epoch ms (fractional) as nanoseconds in decimal, to the microsecond. */
export function unixNanos(ms: number): string {
  return `${String(Math.round(ms * 1000))}000`;
}

export function otlpTraceBody(resource: TraceResource, spans: readonly FinishedSpan[]): unknown {
  return {
    resourceSpans: [
      {
        resource: {
          attributes: attributes({ 'service.name': resource.serviceName, 'service.version': resource.serviceVersion, 'host.name': resource.hostName }),
        },
        scopeSpans: [
          {
            scope: { name: 'cihub', version: resource.serviceVersion },
            spans: spans.map((s) => ({
              traceId: s.traceId,
              spanId: s.spanId,
              ...(s.parentSpanId === null ? {} : { parentSpanId: s.parentSpanId }),
              name: s.name,
              kind: SPAN_KIND[s.kind],
              startTimeUnixNano: unixNanos(s.startMs),
              endTimeUnixNano: unixNanos(Math.max(s.endMs, s.startMs)),
              attributes: attributes(s.attributes),
              status: s.error === null ? { code: STATUS_UNSET } : { code: STATUS_ERROR, message: s.error },
            })),
          },
        ],
      },
    ],
  };
}
