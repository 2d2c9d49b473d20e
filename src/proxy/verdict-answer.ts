/**
 * Reading a 500's body for a verdict, and answering the app with one.
 */
import type { Dispatcher } from 'undici';
import type { Attempt } from '../routing-log/entry.js';
import { verdictStatus } from './request-verdict.js';
import { relayHeaders } from './response-headers.js';
import type { HeldVerdict } from './verdict-tracker.js';
import type { VerdictResponse, WalkDeps, WalkRequest } from './walk-types.js';

/** Reads at most `limit` bytes of a body within `timeoutMs`; null when it is longer or slower (then no verdict). */
export async function readBounded(body: Dispatcher.ResponseData['body'], limit: number, timeoutMs: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  const timer = setTimeout(() => body.destroy(), timeoutMs);
  try {
    for await (const chunk of body) {
      size += (chunk as Buffer).length;
      if (size > limit) {
        body.destroy();
        return null;
      }
      chunks.push(chunk as Buffer);
    }
    return Buffer.concat(chunks);
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Answers the app with an engine's verdict: the engine's body and headers, as 400 (the
 * request's fault, so SDKs do not retry it) with X-Hub-Pool-Upstream-Status: 500, or as the
 * engine's 500 for a template that would not render. The row records the signature, never the text.
 */
export function answerVerdict(
  deps: WalkDeps,
  req: WalkRequest,
  verdict: HeldVerdict<VerdictResponse>,
  basis: 'definitive' | 'confirmed' | 'last-candidate',
  confirms: string | null,
  attempts: Attempt[],
  totalMs: number,
): void {
  const status = verdictStatus(verdict.signature);
  const out = relayHeaders(verdict.response.headers, { servedBy: verdict.node, backend: verdict.response.backend, model: req.model, requestId: req.requestId });
  if (status !== 500) out['x-hub-pool-upstream-status'] = '500';
  out['content-length'] = verdict.response.bytes.length;
  req.res.writeHead(status, out);
  req.res.end(verdict.response.bytes);
  deps.logger.info({ requestId: req.requestId, node: verdict.node, signature: verdict.signature, basis }, 'answered with an engine\'s verdict on the request');
  deps.rows.settle(req.requestId, {
    node: verdict.node,
    backend: verdict.response.backend,
    attempt: verdict.index + 1,
    failedOverFrom: attempts.map((a) => a.node),
    attempts: [...attempts],
    status: 500,
    durationMs: totalMs,
    totalMs,
    outcome: 'failed',
    requestError: { signature: verdict.signature, basis, confirms },
    reason: `HTTP 500 (${verdict.signature})`,
  });
}

