import type { ServerResponse } from 'node:http';
import { AppStallWatch } from './app-stall.js';
import type { StreamJudge } from './output-check.js';
import type { BodySink, UpstreamExchange } from './upstream-exchange.js';

/** How reading a body up to a bound ended. */
export type BoundedRead =
  /** The whole body, within the bound. */
  | { readonly kind: 'whole'; readonly bytes: Buffer }
  /** Past the bound: what was read so far, in order. The exchange is paused there, the rest unread, for a relay to carry on. */
  | { readonly kind: 'over-limit'; readonly head: readonly Buffer[] }
  /** The body failed part-way (a dropped connection, undici's body timeout, an abort); `head` is what arrived before it did. */
  | { readonly kind: 'failed'; readonly error: unknown; readonly head: readonly Buffer[] };

/**
 * Reads a body whole if it ends within `limitBytes`, and stops at the bound otherwise, keeping
 * what it read so the answer can still be relayed: nothing an engine or a peer sends is held
 * past a stated size. (util/bounded-read.ts abandons a body at its bound; a completion past it
 * is still the app's answer.)
 */
export function readUpTo(exchange: UpstreamExchange, limitBytes: number): Promise<BoundedRead> {
  return new Promise<BoundedRead>((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    exchange.take({
      data(chunk) {
        size += chunk.length;
        chunks.push(chunk);
        if (size <= limitBytes) return true;
        exchange.release();
        resolve({ kind: 'over-limit', head: chunks });
        return false;
      },
      end: () => resolve({ kind: 'whole', bytes: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size) }),
      error: (error) => resolve({ kind: 'failed', error, head: chunks }),
    });
  });
}

/**
 * A body read whole within `limitBytes` and `timeoutMs`; null past either, or when it failed
 * (the exchange is stopped then). For an engine's 500, read to see whether it is a verdict.
 */
export async function readWithin(exchange: UpstreamExchange, limitBytes: number, timeoutMs: number): Promise<Buffer | null> {
  // A deadline on an awaited read, cleared below: not a background task.
  const deadline = setTimeout(() => exchange.abort(new Error(`the body took longer than ${timeoutMs} ms to arrive`)), timeoutMs);
  try {
    const read = await readUpTo(exchange, limitBytes);
    if (read.kind === 'whole') return read.bytes;
    exchange.abort(new Error(`the body passed ${limitBytes} bytes`));
    return null;
  } finally {
    clearTimeout(deadline);
  }
}

/** Drops a body that will not be read (a non-200 answer); its connection closes unless it had already ended. */
export function dropBody(exchange: UpstreamExchange): void {
  exchange.abort(new Error('the answer is not read'));
}

/**
 * Relays a committed body to the app, after `head` (what was already read of it), chunk by
 * chunk from undici's handler, pausing the exchange while the app's socket is full; calls
 * `settle` once, when it ended (dropped: false), the engine's side failed (dropped: true) or
 * the app left. A judge, when given, sees each chunk as it passes; nothing is held back. An app
 * that takes none of the waiting bytes for `stallMs` is taken as gone (app-stall.ts): its
 * connection is closed, and `settle` gets `stalledMs` (null on every other end).
 */
export function relayBody(
  exchange: UpstreamExchange,
  res: ServerResponse,
  opts: { judge: StreamJudge | null; head?: readonly Buffer[]; stallMs: number },
  settle: (dropped: boolean, stalledMs: number | null) => void,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let settled = false;
    const watch = new AppStallWatch(res, opts.stallMs, () => exchange.resume());
    const finish = (dropped: boolean) => {
      if (settled) return;
      settled = true;
      watch.stop();
      // finish runs inside undici's handler and the response's events, where a throw would end
      // the process: it goes to the awaiting walk instead, which settles the request as broken (a
      // null choice in a stream once threw in the judge here and took the Hub down).
      try {
        settle(dropped, watch.cutAfterMs);
      } catch (err) {
        reject(err);
        return;
      }
      resolve();
    };
    // The app left before the relay began: its close event has fired already and will not again.
    if (res.destroyed) {
      exchange.abort(new Error('the caller left'));
      return finish(false);
    }
    const { judge } = opts;
    let wrote = false;
    res.once('finish', () => finish(false));
    res.once('close', () => {
      if (!res.writableFinished) {
        finish(false);
        exchange.abort(new Error('the caller left'));
      }
    });
    // Written at once (it was read already), and watched like the rest if it fills the socket.
    for (const chunk of opts.head ?? []) {
      judge?.push(chunk);
      watch.write(chunk);
      wrote = true;
    }
    const sink: BodySink = {
      data(chunk) {
        wrote = true;
        judge?.push(chunk);
        return watch.write(chunk);
      },
      end: () => {
        res.end();
        watch.ended();
      },
      error() {
        // On a destroyed response the error is this side's own abort (the app left, or the stall
        // watch closed it; the walk's caller line aborts on the response's close before the
        // listener above runs), not the engine's stream breaking. Settled before destroying: the
        // destroy closes the response, which must not read as a hang-up.
        finish(!res.writableFinished && !res.destroyed);
        res.destroy();
      },
    };
    exchange.take(sink);
    // Status and attribution go to the app now even when no byte of the body is here yet (a
    // prefill can hold the first token back for minutes). When a chunk came with the headers they
    // went out together in one write: sending the headers alone first cost the app one more
    // wake-up, +0.65 ms to the first event at one connection (bench/README.md, "first event").
    if (!wrote && !res.writableEnded) res.flushHeaders();
  });
}
