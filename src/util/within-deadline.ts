/**
 * A deadline on one undici request that covers its connection too. undici's headersTimeout
 * starts only once the request is written, the Hub's Agents set no connect timeout, and an abort
 * does not end a request still waiting for its connection: against an address that drops SYNs
 * (a firewall that drops, a tailnet machine that is switched off) a call waited out undici's own
 * 10 s connect default whatever budget it was given (measured: 10,518 ms, ending in
 * UND_ERR_CONNECT_TIMEOUT). The bound is per call rather than a connect timeout on an Agent,
 * because an Agent carries calls with different budgets; the abandoned connection ends on
 * undici's own timers.
 */
import type { Dispatcher } from 'undici';
import { discardBody } from './bounded-read.js';

/**
 * The response, or null once `timeoutMs` passed without it. One that comes later has its body
 * closed, so its connection is not left holding an answer nobody reads, and one that fails later
 * is dropped: nobody is left to tell, and it must not surface as an unhandled rejection.
 */
export function withinDeadline(pending: Promise<Dispatcher.ResponseData>, timeoutMs: number): Promise<Dispatcher.ResponseData | null> {
  return new Promise((resolve, reject) => {
    // A deadline on an awaited call, cleared when the call settles first: not a background task.
    const deadline = setTimeout(() => {
      resolve(null);
      pending.then((late) => discardBody(late.body), ignoreLateFailure);
    }, timeoutMs);
    pending.then(
      (res) => {
        clearTimeout(deadline);
        resolve(res);
      },
      (err: unknown) => {
        clearTimeout(deadline);
        reject(err);
      },
    );
  });
}

/** A call given up on by its deadline has nobody to tell how it failed. */
function ignoreLateFailure(): void {}
