/**
 * Maps anything thrown on an operator route to a response, once: a HubError answers with
 * its own code and status; Fastify's body errors map onto the catalogue; anything else is
 * a 500 that names no internals.
 */
import { HubError } from '../errors.js';

export function toHubError(err: unknown): HubError {
  if (err instanceof HubError) return err;
  const e = err as { code?: unknown; statusCode?: unknown; message?: unknown };
  switch (e?.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new HubError('HUB_ERR_BODY_TOO_LARGE', 'the request body is larger than this Hub accepts');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new HubError('HUB_ERR_UNSUPPORTED_MEDIA_TYPE', 'send the body as application/json');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new HubError('HUB_ERR_INVALID_JSON', 'the request says it carries JSON but the body is empty');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new HubError('HUB_ERR_BAD_REQUEST', 'the request body does not match its Content-Length');
  }
  if (e?.statusCode === 400 && typeof e.message === 'string') return new HubError('HUB_ERR_INVALID_JSON', `the request body is not valid JSON (${e.message})`);
  return new HubError('HUB_ERR_INTERNAL', 'the Hub failed to answer this request; its log has the details', { cause: err });
}
