/**
 * One short phrase for an outbound HTTP call that threw, for an operator to read. A timeout
 * reads as "no answer within <budget>": AbortSignal.timeout rejects with a DOMException whose
 * legacy numeric code is 23, and printing `code ?? message` put "(23)" in front of operators,
 * next to a hint that blamed their credentials. Only a string code (ECONNREFUSED, ENOTFOUND,
 * a certificate error) names what went wrong.
 */
import { UpstreamReadError } from './bounded-read.js';

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT', 'ETIMEDOUT']);

export function describeCallFailure(err: unknown, timeoutMs: number): string {
  if (isCallTimeout(err)) return noAnswerWithin(timeoutMs);
  if (err instanceof UpstreamReadError) return err.message;
  const code = stringCode(err) ?? stringCode((err as { cause?: unknown } | null)?.cause);
  if (code !== null) return code;
  const message = (err as { message?: unknown } | null)?.message;
  return typeof message === 'string' && message !== '' ? message : 'no answer';
}

/** How a call that ran out of its budget reads, wherever it is described. */
export function noAnswerWithin(timeoutMs: number): string {
  return `no answer within ${seconds(timeoutMs)}`;
}

/** Whether a call that threw ran out of its budget (the other end took it and stayed silent), rather than failing outright. */
export function isCallTimeout(err: unknown): boolean {
  if (err instanceof UpstreamReadError) return err.failure === 'timed-out';
  const e = err as { name?: unknown; cause?: { name?: unknown } } | null;
  if (e?.name === 'TimeoutError' || e?.cause?.name === 'TimeoutError') return true;
  const code = stringCode(err) ?? stringCode((err as { cause?: unknown } | null)?.cause);
  return code !== null && TIMEOUT_CODES.has(code);
}

function stringCode(err: unknown): string | null {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code !== '' ? code : null;
}

/** "10 s", or "2.5 s" for a budget cut short by a deadline. */
function seconds(ms: number): string {
  return `${Math.round(Math.max(0, ms) / 100) / 10} s`;
}
