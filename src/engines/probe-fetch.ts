/**
 * One bounded GET for a probe or a listing: JSON or a sentence saying why not. The body is read
 * within a stated byte limit and the transport budget, so an engine cannot grow the Hub's
 * memory without bound by answering a listing with gigabytes (issue 9, defect 3).
 */
import { request } from '../util/undici-lean.js';
import type { Dispatcher } from 'undici';
import { discardBody, parseJsonOrUndefined, readBounded, UpstreamReadError } from '../util/bounded-read.js';
import { noAnswerWithin } from '../util/call-failure.js';
import { withinDeadline } from '../util/within-deadline.js';

/** Transport budget for one probe (spec, "Placement reads a snapshot": 5 s per backend). */
export const PROBE_TRANSPORT_TIMEOUT_MS = 5_000;

/**
 * Largest model listing (/api/tags, /v1/models) or /api/ps answer read from an engine: 16 MiB.
 * A real listing is about 1 KiB per model; 16 MiB holds thousands with room to spare.
 */
export const ENGINE_LISTING_MAX_BYTES = 16 * 1024 * 1024;
/**
 * Largest /api/show answer read from an engine: 32 MiB. With verbose set Ollama includes the
 * tokenizer's vocabulary, a few MiB for today's models.
 */
export const ENGINE_SHOW_MAX_BYTES = 32 * 1024 * 1024;
/** Largest /api/version answer: 64 KiB (the real one is about 20 bytes). */
export const ENGINE_VERSION_MAX_BYTES = 64 * 1024;

export type GetJsonResult = { ok: true; status: number; json: unknown } | { ok: false; running: boolean; error: string };

const NOT_JSON = 'answered with a body that is not JSON';

export async function getJson(url: string, dispatcher: Dispatcher, signal: AbortSignal, maxBytes: number): Promise<GetJsonResult> {
  const res = await getBytes(url, dispatcher, signal, maxBytes);
  if (!res.ok) return res;
  const json = parseJsonOrUndefined(res.bytes);
  return json === undefined ? { ok: false, running: true, error: NOT_JSON } : { ok: true, status: 200, json };
}

/**
 * One GET's whole 200 body within `maxBytes` and `timeoutMs` (the connection and the headers
 * together, then the body from its start), or why not.
 *
 * The connection is inside the bound (util/within-deadline.ts): without it a port that drops SYNs
 * held a probe for undici's 10 s connect default rather than the spec's 5 s. The engine Agent
 * also carries the proxy's forwards, so the bound is per call.
 */
export async function getBytes(
  url: string,
  dispatcher: Dispatcher,
  signal: AbortSignal,
  maxBytes: number,
  timeoutMs: number = PROBE_TRANSPORT_TIMEOUT_MS,
): Promise<{ ok: true; bytes: Buffer } | { ok: false; running: boolean; error: string }> {
  try {
    const res = await withinDeadline(
      request(url, {
        method: 'GET',
        dispatcher,
        signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      }),
      timeoutMs,
    );
    if (res === null) return { ok: false, running: false, error: `timed out (no connection and answer within ${timeoutMs} ms)` };
    if (res.statusCode !== 200) {
      discardBody(res.body);
      return { ok: false, running: true, error: `HTTP ${res.statusCode}` };
    }
    return { ok: true, bytes: await readBounded(res.body, { maxBytes, timeoutMs }, res.headers['content-length']) };
  } catch (err) {
    if (err instanceof UpstreamReadError) return { ok: false, running: true, error: err.message };
    return { ok: false, running: false, error: describeTransportError(err) };
  }
}

/**
 * Reads an engine answer through its schema, parsing only when the bytes changed. At the
 * default TTL of 0 every request probes every engine, and a listing is the same bytes probe
 * after probe; comparing bytes is a memcmp, where JSON.parse and the schema cost tens of µs per
 * model. One memo per (adapter, engine URL): both come from the configuration, so it stays small.
 */
export class ParsedAnswers<T> {
  readonly #read: (json: unknown) => T;
  readonly #last = new Map<string, { bytes: Buffer; value: T }>();

  constructor(read: (json: unknown) => T) {
    this.#read = read;
  }

  /** The schema's reading of a 200 body; undefined when the body is not JSON. */
  read(url: string, bytes: Buffer): T | undefined {
    const last = this.#last.get(url);
    if (last !== undefined && last.bytes.equals(bytes)) return last.value;
    const json = parseJsonOrUndefined(bytes);
    if (json === undefined) return undefined;
    const value = this.#read(json);
    this.#last.set(url, { bytes, value });
    return value;
  }
}

export type GetParsedResult<T> = { ok: true; value: T } | { ok: false; running: boolean; error: string };

/** getJson, read through a memoised schema. */
export async function getParsed<T>(
  url: string,
  dispatcher: Dispatcher,
  signal: AbortSignal,
  maxBytes: number,
  answers: ParsedAnswers<T>,
): Promise<GetParsedResult<T>> {
  const res = await getBytes(url, dispatcher, signal, maxBytes);
  if (!res.ok) return res;
  const value = answers.read(url, res.bytes);
  return value === undefined ? { ok: false, running: true, error: NOT_JSON } : { ok: true, value };
}

/**
 * The codes Node gives a TLS handshake that refused the far side's certificate: OpenSSL's
 * verification results (UNABLE_TO_VERIFY_LEAF_SIGNATURE, CERT_HAS_EXPIRED, DEPTH_ZERO_SELF_SIGNED_CERT,
 * INVALID_CA, HOSTNAME_MISMATCH, ...) and Node's own ERR_TLS_CERT_ALTNAME_INVALID.
 */
const CERTIFICATE_ERROR_CODE = /CERT|^UNABLE_TO_|^INVALID_CA$|^HOSTNAME_MISMATCH$/;

/**
 * "fetch failed (ECONNREFUSED)"-style text from a transport error: the code (with none, the
 * error's own message, cut short), never a body. A refused certificate says so, since "fetch
 * failed" sends an operator looking at the network when the fix is the name's certificate or this
 * machine's trust store. A call that ran out of its AbortSignal.timeout budget reads "no answer
 * within <timeoutMs>", the wording of util/call-failure.ts: the DOMException it rejects with has
 * no string code, so a peer that took the connection and said nothing read "fetch failed" in
 * discovery's notHubs and in peer health.
 */
export function describeTransportError(err: unknown, timeoutMs?: number): string {
  if (err instanceof UpstreamReadError) return err.message;
  const e = err as { name?: unknown; message?: unknown; cause?: { name?: unknown } };
  if (e?.name === 'TimeoutError' || e?.cause?.name === 'TimeoutError') return timeoutMs === undefined ? 'timed out' : noAnswerWithin(timeoutMs);
  const code = transportCode(err, TRANSPORT_CODE_DEPTH_MAX);
  if (e?.name === 'AbortError' || code === 'UND_ERR_ABORTED' || code === 'ABORT_ERR') return 'aborted';
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return `timed out (${code})`;
  if (code !== null && CERTIFICATE_ERROR_CODE.test(code)) return `TLS certificate not trusted (${code})`;
  if (code !== null) return `fetch failed (${code})`;
  // No code anywhere: the error's own words, so the failure can still be told apart. These come
  // from Node and undici (an address at most, never a body), cut to one short line.
  const message = typeof e?.message === 'string' ? e.message.replace(/\s+/g, ' ').trim() : '';
  return message === '' || message === 'fetch failed' ? 'fetch failed' : `fetch failed: ${message.slice(0, TRANSPORT_MESSAGE_MAX_CHARS)}`;
}

/** How far down causes and an AggregateError's errors the code is looked for. */
const TRANSPORT_CODE_DEPTH_MAX = 3;
/** How much of a code-less error's message is quoted. */
const TRANSPORT_MESSAGE_MAX_CHARS = 120;

/**
 * The first string code on the error, down its cause chain or an AggregateError's errors (what
 * Node raises when a connection was tried on several addresses). A probe once met a refused
 * port and read only "fetch failed": the code was not on the error or its direct cause.
 */
function transportCode(err: unknown, depth: number): string | null {
  if (err === null || typeof err !== 'object') return null;
  const e = err as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof e.code === 'string') return e.code;
  if (depth === 0) return null;
  const below = transportCode(e.cause, depth - 1);
  if (below !== null) return below;
  if (!Array.isArray(e.errors)) return null;
  for (const inner of e.errors.slice(0, 4)) {
    const code = transportCode(inner, depth - 1);
    if (code !== null) return code;
  }
  return null;
}
