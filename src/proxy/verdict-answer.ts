/**
 * Answering the app with an engine's verdict on its request: the engine's body and headers, as
 * 400 (the request's fault, so SDKs do not retry it) with X-Hub-Pool-Upstream-Status: 500, or
 * as the engine's 500 for a template that would not render. The row records the signature,
 * never the text (walk-rows.ts).
 */
import { verdictStatus } from './request-verdict.js';
import { relayHeaders } from './response-headers.js';
import type { HeldVerdict } from './verdict-tracker.js';
import type { VerdictResponse, WalkRequest } from './walk-types.js';

export function answerVerdict(req: WalkRequest, verdict: HeldVerdict<VerdictResponse>): void {
  const status = verdictStatus(verdict.signature);
  const out = relayHeaders(verdict.response.headers, {
    servedBy: verdict.node,
    backend: verdict.response.backend,
    model: req.model,
    requestId: req.requestId,
    affinity: req.affinity,
  });
  if (status !== 500) out['x-hub-pool-upstream-status'] = '500';
  out['content-length'] = verdict.response.bytes.length;
  req.res.writeHead(status, out);
  req.res.end(verdict.response.bytes);
}
