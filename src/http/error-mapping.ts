/**
 * Maps anything thrown on a route to a response, once: a HubError answers with its own code
 * and status; Fastify's own errors (body, content type, URL) map onto the catalogue by code,
 * then by status, so no answer ever carries a code outside it; anything else is a 500 that
 * names no internals.
 */
import { HubError, type ErrorCode } from '../errors.js';

/** Catalogue codes for a Fastify error this file does not name, by its HTTP status. */
const BY_STATUS: Readonly<Record<number, ErrorCode>> = {
  400: 'HUB_ERR_BAD_REQUEST',
  404: 'HUB_ERR_NOT_FOUND',
  408: 'HUB_ERR_REQUEST_TIMEOUT',
  413: 'HUB_ERR_BODY_TOO_LARGE',
  415: 'HUB_ERR_UNSUPPORTED_MEDIA_TYPE',
  431: 'HUB_ERR_HEADERS_TOO_LARGE',
};

/** Longest path parameter the router matches (server.ts gives it to Fastify as maxParamLength). */
export const MAX_PATH_PARAM_CHARS = 100;

const BYTES_PER_MIB = 1024 * 1024;

/** Longest stretch of a caller's Content-Type repeated in a 415: enough for any real media type. */
const MEDIA_TYPE_ECHO_MAX_CHARS = 80;

/**
 * @param contentType the request's Content-Type header, when the caller has one: a 415 names the
 *   type it refused (a form type is what `curl -d` sends, no type what Python's `requests` sends
 *   for `data=`), so the caller sees what to change.
 * @param bodyLimitBytes the body bound of the route that refused, when known: a 413 then says how
 *   much the caller may send.
 */
export function toHubError(err: unknown, contentType?: string, bodyLimitBytes?: number): HubError {
  if (err instanceof HubError) return err;
  const e = err as { code?: unknown; statusCode?: unknown; message?: unknown };
  switch (e?.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new HubError(
        'HUB_ERR_BODY_TOO_LARGE',
        bodyLimitBytes === undefined
          ? 'the request body is larger than this Hub accepts'
          : `the request body is larger than the ${bodyLimitBytes / BYTES_PER_MIB} MiB this route accepts`,
      );
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new HubError('HUB_ERR_UNSUPPORTED_MEDIA_TYPE', unsupportedMediaType(contentType));
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new HubError('HUB_ERR_INVALID_JSON', 'the request says it carries JSON but the body is empty');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new HubError('HUB_ERR_BAD_REQUEST', 'the request body does not match its Content-Length');
    case 'FST_ERR_BAD_URL':
      return new HubError('HUB_ERR_BAD_REQUEST', 'the request URL is not valid (a malformed %-escape)');
    // The router's own bound, met before any route runs: no id, name or token this Hub issues is
    // that long. Unmapped, anyone could make the Hub answer 500 and log an error per request.
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new HubError('HUB_ERR_BAD_REQUEST', `a path segment of the request URL is longer than this Hub reads (${MAX_PATH_PARAM_CHARS} characters)`);
  }
  const byStatus = typeof e?.statusCode === 'number' ? BY_STATUS[e.statusCode] : undefined;
  if (byStatus !== undefined) return new HubError(byStatus, typeof e.message === 'string' ? e.message.slice(0, 200) : 'the request was refused');
  return new HubError('HUB_ERR_INTERNAL', 'the Hub failed to answer this request; its log has the details', { cause: err });
}

function unsupportedMediaType(contentType: string | undefined): string {
  const type = contentType
    ?.split(';')[0]
    ?.replace(/[^\x21-\x7e]/g, '')
    .slice(0, MEDIA_TYPE_ECHO_MAX_CHARS);
  const sent = type ? `the body is sent as ${type}` : 'the body is sent with no content type';
  return `${sent}, which this Hub does not read: send it as JSON with content-type: application/json`;
}
