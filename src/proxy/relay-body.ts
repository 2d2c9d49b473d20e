import type { ServerResponse } from 'node:http';
import type { Dispatcher } from 'undici';
import type { StreamJudge } from './output-check.js';

type Body = Dispatcher.ResponseData['body'];

/** How reading a body up to a bound ended. */
export type BoundedRead =
  /** The whole body, within the bound. */
  | { readonly kind: 'whole'; readonly bytes: Buffer }
  /** Past the bound: what was read so far, in order. The body is paused there, unread, for a relay to carry on. */
  | { readonly kind: 'over-limit'; readonly head: readonly Buffer[] }
  /** The body failed part-way (a dropped connection, undici's body timeout, an abort). */
  | { readonly kind: 'failed'; readonly error: unknown };

const ignore = (): void => {};

/**
 * Reads a body whole if it ends within `limitBytes`, and stops at the bound otherwise, keeping
 * what it read so the answer can still be relayed: nothing an engine or a peer sends is held
 * past a stated size. (util/bounded-read.ts abandons a body at its bound; a completion past it
 * is still the app's answer.)
 */
export function readUpTo(body: Body, limitBytes: number): Promise<BoundedRead> {
  // An error after the read gave up (a paused body later destroyed) must not crash the Hub.
  body.on('error', ignore);
  return new Promise<BoundedRead>((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (result: BoundedRead) => {
      body.off('data', onData).off('end', onEnd).off('error', onError);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      chunks.push(chunk);
      if (size > limitBytes) {
        body.pause();
        done({ kind: 'over-limit', head: chunks });
      }
    };
    const onEnd = () => done({ kind: 'whole', bytes: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size) });
    const onError = (error: unknown) => done({ kind: 'failed', error });
    body.on('data', onData).once('end', onEnd).once('error', onError);
  });
}

/**
 * Pipes a committed body to the app, after `head` (what was already read of it), and calls
 * `settle` once, when it ended (dropped: false), the engine's side failed (dropped: true) or
 * the app left. Plain pipe() rather than stream.pipeline(): pipeline builds and aborts an
 * AbortController on every normal finish, which showed up as 4 % of the Hub's CPU on streams
 * (bench/README.md). A judge, when given, sees each chunk as it passes; nothing is held back.
 */
export function relayBody(
  body: Body,
  res: ServerResponse,
  opts: { judge: StreamJudge | null; head?: readonly Buffer[] },
  settle: (dropped: boolean) => void,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let settled = false;
    const finish = (dropped: boolean) => {
      if (settled) return;
      settled = true;
      // finish runs inside stream events, where a throw would end the process: it goes to the
      // awaiting walk instead, which settles the request as broken (a null choice in a stream
      // once threw in the judge here and took the Hub down).
      try {
        settle(dropped);
      } catch (err) {
        reject(err);
        return;
      }
      resolve();
    };
    // The app left before the relay began: its close event has fired already and will not again.
    if (res.destroyed) {
      body.on('error', ignore).destroy();
      return finish(false);
    }
    const { judge } = opts;
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
    for (const chunk of opts.head ?? []) {
      judge?.push(chunk);
      res.write(chunk);
    }
    body.pipe(res);
  });
}
