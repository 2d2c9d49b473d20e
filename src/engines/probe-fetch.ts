/**
 * One bounded GET for a probe or a listing: JSON or a sentence saying why not.
 */
import { request, type Dispatcher } from 'undici';

/** Transport budget for one probe (spec, "Placement reads a snapshot": 5 s per backend). */
export const PROBE_TRANSPORT_TIMEOUT_MS = 5_000;

export type GetJsonResult = { ok: true; status: number; json: unknown } | { ok: false; running: boolean; error: string };

export async function getJson(url: string, dispatcher: Dispatcher, signal: AbortSignal): Promise<GetJsonResult> {
  try {
    const res = await request(url, {
      method: 'GET',
      dispatcher,
      signal,
      headersTimeout: PROBE_TRANSPORT_TIMEOUT_MS,
      bodyTimeout: PROBE_TRANSPORT_TIMEOUT_MS,
    });
    const text = await res.body.text();
    if (res.statusCode !== 200) return { ok: false, running: true, error: `HTTP ${res.statusCode}` };
    try {
      return { ok: true, status: res.statusCode, json: JSON.parse(text) };
    } catch {
      return { ok: false, running: true, error: 'answered with a body that is not JSON' };
    }
  } catch (err) {
    return { ok: false, running: false, error: describeTransportError(err) };
  }
}

/** "fetch failed (ECONNREFUSED)"-style text from a transport error: the code, never a body. */
export function describeTransportError(err: unknown): string {
  const e = err as { code?: unknown; name?: unknown; cause?: { code?: unknown } };
  const code = typeof e?.code === 'string' ? e.code : typeof e?.cause?.code === 'string' ? e.cause.code : null;
  if (e?.name === 'AbortError' || code === 'UND_ERR_ABORTED' || code === 'ABORT_ERR') return 'aborted';
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return `timed out (${code})`;
  return code ? `fetch failed (${code})` : 'fetch failed';
}
