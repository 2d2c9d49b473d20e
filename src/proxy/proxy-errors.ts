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
  const body =
    dialect === 'openai'
      ? // OpenAI SDKs surface only the inner error object, so facts such as localBackends go inside it.
        { error: { message, type: status >= 500 ? 'server_error' : 'invalid_request_error', code, ...extra } }
      : { error: message, code, ...extra };
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
