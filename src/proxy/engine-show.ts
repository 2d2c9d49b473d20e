/**
 * Asks one local Ollama to describe a model (POST /api/show) and says what came of it, writing
 * nothing to the app: the caller decides whether to relay the answer or take the next engine's.
 * Asked live rather than trusted to the health snapshot, which can be up to its TTL old: a model
 * pulled since is described at once, and one removed since is looked for elsewhere.
 */
import { request } from '../util/undici-lean.js';
import type { Dispatcher } from 'undici';
import type { BackendView } from '../engines/types.js';
import { describeTransportError, ENGINE_SHOW_MAX_BYTES, PROBE_TRANSPORT_TIMEOUT_MS } from '../engines/probe-fetch.js';
import { discardBody, readBounded } from '../util/bounded-read.js';
import { decideOnStatus } from './failover-policy.js';

export type EngineShowOutcome =
  /** What the engine answered, to relay as it is. */
  | { readonly kind: 'answer'; readonly status: number; readonly contentType: string; readonly bytes: Buffer }
  /** Ollama's 404 on /api/show: it does not hold the model (now), so another node may describe it. */
  | { readonly kind: 'not-held' }
  /** No answer within the bounds, or one about the engine rather than the model (5xx, 408, 429); `why` names the engine and what happened. */
  | { readonly kind: 'failed'; readonly why: string };

export async function askEngineShow(dispatcher: Dispatcher, backend: BackendView, body: Buffer, signal: AbortSignal): Promise<EngineShowOutcome> {
  try {
    const answer = await request(`${backend.url}/api/show`, {
      method: 'POST',
      dispatcher,
      headers: { 'content-type': 'application/json' },
      body,
      headersTimeout: PROBE_TRANSPORT_TIMEOUT_MS,
      bodyTimeout: PROBE_TRANSPORT_TIMEOUT_MS,
      signal,
    });
    if (answer.statusCode === 404) {
      discardBody(answer.body);
      return { kind: 'not-held' };
    }
    // The engine speaking of itself (down, queue full): it says nothing of the model, so the next
    // engine or a peer may still describe it.
    if (decideOnStatus(answer.statusCode) === 'fail-over') {
      discardBody(answer.body);
      return { kind: 'failed', why: `${backend.backendId} at ${backend.url} answered /api/show with HTTP ${answer.statusCode}` };
    }
    const bytes = await readBounded(answer.body, { maxBytes: ENGINE_SHOW_MAX_BYTES, timeoutMs: PROBE_TRANSPORT_TIMEOUT_MS }, answer.headers['content-length']);
    return { kind: 'answer', status: answer.statusCode, contentType: String(answer.headers['content-type'] ?? 'application/json'), bytes };
  } catch (err) {
    return { kind: 'failed', why: `${backend.backendId} at ${backend.url} did not answer /api/show (${describeTransportError(err)})` };
  }
}
