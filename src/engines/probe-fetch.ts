/**
 * One bounded GET for a probe or a listing: JSON or a sentence saying why not. The body is read
 * within a stated byte limit and the transport budget, so an engine cannot grow the Hub's
 * memory without bound by answering a listing with gigabytes (issue 9, defect 3).
 */
import { request, type Dispatcher } from 'undici';
import { discardBody, parseJsonOrUndefined, readBounded, UpstreamReadError } from '../util/bounded-read.js';

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

export async function getJson(url: string, dispatcher: Dispatcher, signal: AbortSignal, maxBytes: number): Promise<GetJsonResult> {
  try {
    const res = await request(url, {
      method: 'GET',
      dispatcher,
      signal,
      headersTimeout: PROBE_TRANSPORT_TIMEOUT_MS,
      bodyTimeout: PROBE_TRANSPORT_TIMEOUT_MS,
    });
    if (res.statusCode !== 200) {
      discardBody(res.body);
      return { ok: false, running: true, error: `HTTP ${res.statusCode}` };
    }
    const bytes = await readBounded(res.body, { maxBytes, timeoutMs: PROBE_TRANSPORT_TIMEOUT_MS }, res.headers['content-length']);
    const json = parseJsonOrUndefined(bytes);
    if (json === undefined) return { ok: false, running: true, error: 'answered with a body that is not JSON' };
    return { ok: true, status: res.statusCode, json };
  } catch (err) {
    if (err instanceof UpstreamReadError) return { ok: false, running: true, error: err.message };
    return { ok: false, running: false, error: describeTransportError(err) };
  }
}

/** "fetch failed (ECONNREFUSED)"-style text from a transport error: the code, never a body. */
export function describeTransportError(err: unknown): string {
  if (err instanceof UpstreamReadError) return err.message;
  const e = err as { code?: unknown; name?: unknown; cause?: { code?: unknown } };
  const code = typeof e?.code === 'string' ? e.code : typeof e?.cause?.code === 'string' ? e.cause.code : null;
  if (e?.name === 'AbortError' || code === 'UND_ERR_ABORTED' || code === 'ABORT_ERR') return 'aborted';
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return `timed out (${code})`;
  return code ? `fetch failed (${code})` : 'fetch failed';
}
