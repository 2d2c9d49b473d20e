/**
 * Errors on the app-facing routes, in the dialect the app speaks, so an OpenAI SDK or the
 * Ollama client shows the reason verbatim: OpenAI `{ error: { message, type, code } }`,
 * Ollama `{ error: "message" }`.
 */
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { ProxyDialect } from '../engines/types.js';
import type { ErrorCode } from '../errors.js';

/** The inference guard's two codes are OpenAI's own, which its SDKs and editors already know; every other code is the catalogue's. */
export type InferenceRefusalCode = 'missing_api_key' | 'invalid_api_key';

/**
 * The OpenAI SDKs retry a 5xx twice by default unless `x-should-retry` says not to. These answers
 * come from the snapshot a retry a second later would read: on a chat naming a model nobody held,
 * the retries tripled the routing-log rows and added 1-3 s before the app saw the error; on the
 * listings, /v1/models was asked three times. Set here, by code, so every writer of them says it.
 * HUB_ERR_ALL_CANDIDATES_FAILED stays retryable: its engines were there and failed, and may answer
 * the next try.
 */
const NOTHING_TO_RETRY: ReadonlySet<ErrorCode | InferenceRefusalCode> = new Set(['HUB_ERR_NO_CANDIDATE', 'HUB_ERR_NO_AUTO_MODEL']);

export function writeProxyError(
  res: ServerResponse,
  dialect: ProxyDialect,
  status: number,
  code: ErrorCode | InferenceRefusalCode,
  message: string,
  extra: Record<string, unknown> = {},
  headers: OutgoingHttpHeaders = {},
): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(proxyErrorBody(dialect, status, code, message, extra));
  const retry = NOTHING_TO_RETRY.has(code) ? { 'x-should-retry': 'false' } : {};
  res.writeHead(status, { ...headers, ...retry, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** The error body in a dialect, for an answer written where there is no response object (http/error-answer.ts). */
export function proxyErrorBody(
  dialect: ProxyDialect,
  status: number,
  code: ErrorCode | InferenceRefusalCode,
  message: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return dialect === 'openai'
    ? // OpenAI SDKs surface only the inner error object, so facts such as localBackends go inside it.
      { error: { message, type: status >= 500 ? 'server_error' : 'invalid_request_error', code, ...extra } }
    : { error: message, code, ...extra };
}
