/**
 * The closed catalogue of errors the Hub answers with. Codes are a wire contract read by
 * the CLI, the dashboard and scripts: append only, never reuse or rename one.
 * docs/errors.md lists every code with what the operator does about it.
 */

export const ERROR_CATALOGUE = {
  HUB_ERR_BAD_REQUEST: { status: 400 },
  HUB_ERR_INVALID_JSON: { status: 400 },
  HUB_ERR_MODEL_REQUIRED: { status: 400 },
  HUB_ERR_SETTINGS_INVALID: { status: 400 },
  HUB_ERR_QUERY_INVALID: { status: 400 },
  HUB_ERR_UNAUTHORIZED: { status: 401 },
  AUTH_ERROR_QA_READ_KEY_ROUTE_NOT_ALLOWED: { status: 403 },
  HUB_ERR_NOT_FOUND: { status: 404 },
  HUB_ERR_ROUTE_NOT_PROXIED: { status: 404 },
  HUB_ERR_BODY_TOO_LARGE: { status: 413 },
  HUB_ERR_UNSUPPORTED_MEDIA_TYPE: { status: 415 },
  HUB_ERR_NO_CANDIDATE: { status: 502 },
  HUB_ERR_ALL_CANDIDATES_FAILED: { status: 502 },
  HUB_ERR_NO_AUTO_MODEL: { status: 502 },
  HUB_ERR_SHUTTING_DOWN: { status: 503 },
  HUB_ERR_INTERNAL: { status: 500 },
  HUB_ERR_CONFLICT: { status: 409 },
  HUB_ERR_POOL_DISABLED: { status: 503 },
  HUB_ERR_PAIR_PIN_REFUSED: { status: 401 },
  HUB_ERR_PAIR_PIN_REQUIRED: { status: 403 },
  HUB_ERR_PAIR_RATE_LIMITED: { status: 429 },
  HUB_ERR_PAIR_PENDING_FULL: { status: 429 },
  HUB_ERR_PAIR_NAME_INVALID: { status: 400 },
  HUB_ERR_PAIR_OUTSIDE_TAILNET: { status: 403 },
  HUB_ERR_PAIR_SELF: { status: 400 },
  HUB_ERR_PEER_UNAUTHORIZED: { status: 401 },
  HUB_ERR_PEER_NOT_ACCEPTING: { status: 503 },
  HUB_ERR_IDENTITY_UNAVAILABLE: { status: 503 },
  HUB_ERR_NO_TAILNET_NAME: { status: 409 },
  HUB_ERR_PEER_UNREACHABLE: { status: 502 },
  HUB_ERR_PEER_REFUSED: { status: 502 },
  HUB_ERR_PEER_REFUSED_PIN: { status: 502 },
  HUB_ERR_STORE_UNAVAILABLE: { status: 503 },
  HUB_ERR_ADDRESS_REFUSED: { status: 400 },
  HUB_ERR_PEER_PROTOCOL_TOO_OLD: { status: 409 },
  HUB_ERR_NO_HUB_AT_ADDRESS: { status: 502 },
  HUB_ERR_JSON_TOO_DEEP: { status: 400 },
  HUB_ERR_REQUEST_TIMEOUT: { status: 408 },
  HUB_ERR_HEADERS_TOO_LARGE: { status: 431 },
  HUB_ERR_HOST_NOT_ALLOWED: { status: 403 },
  HUB_ERR_CROSS_SITE_REFUSED: { status: 403 },
  HUB_ERR_CSRF_REFUSED: { status: 403 },
  HUB_ERR_DASHBOARD_NOT_BUILT: { status: 503 },
  HUB_ERR_IDENTITY_SECRET_UNUSABLE: { status: 503 },
  HUB_ERR_LOCAL_CALLERS_ONLY: { status: 403 },
} as const satisfies Record<string, { status: number }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** HubError carries a stable code; its HTTP status comes from the catalogue, never the thrower. */
export class HubError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  /** Structured facts the response body carries beside the message (never a prompt). */
  readonly details: Readonly<Record<string, unknown>> | undefined;

  constructor(code: ErrorCode, message: string, options?: { details?: Record<string, unknown>; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'HubError';
    this.code = code;
    this.status = ERROR_CATALOGUE[code].status;
    this.details = options?.details;
  }

  /** The body every operator route answers an error with. */
  toBody(): { error: { code: ErrorCode; message: string } & Record<string, unknown> } {
    return { error: { code: this.code, message: this.message, ...this.details } };
  }
}
