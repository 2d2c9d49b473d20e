import type { ServerResponse } from 'node:http';
import type { Dispatcher } from 'undici';
import type { StreamJudge } from './output-check.js';

/**
 * Pipes a committed body to the app and calls `settle` once, when it ended (dropped: false),
 * the engine's side failed (dropped: true) or the app left. Plain pipe() rather than
 * stream.pipeline(): pipeline builds and aborts an AbortController on every normal finish,
 * which showed up as 4 % of the Hub's CPU on streams (bench/README.md). A judge, when given,
 * sees each chunk as it passes; nothing is held back.
 */
export function relayBody(body: Dispatcher.ResponseData['body'], res: ServerResponse, judge: StreamJudge | null, settle: (dropped: boolean) => void): Promise<void> {
  return new Promise<void>((resolve) => {
    let settled = false;
    const finish = (dropped: boolean) => {
      if (settled) return;
      settled = true;
      settle(dropped);
      resolve();
    };
    if (judge !== null) body.on('data', (chunk: Buffer) => judge.push(chunk));
    body.once('error', () => {
      // Settle before destroying: the destroy closes the response, which must not read as a hang-up.
      finish(!res.writableFinished);
      res.destroy();
    });
    res.once('finish', () => finish(false));
    res.once('close', () => {
      if (!res.writableFinished) {
        body.destroy();
        finish(false);
      }
    });
    body.pipe(res);
  });
}

