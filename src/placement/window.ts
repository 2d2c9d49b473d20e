/**
 * The window a request asks for (spec, "Context caps", placing a request): options.num_ctx on
 * the native Ollama routes, which both fleet agents send; otherwise the prompt estimate, because
 * a request naming no window runs at the serving engine's default, and a prompt over that
 * default is truncated there.
 */
import type { RequestedWindow } from './types.js';

export function requestedWindow(numCtx: number | null, estimatedTokens: number): RequestedWindow {
  return numCtx !== null ? { numCtx, source: 'request' } : { numCtx: estimatedTokens, source: 'estimated' };
}
