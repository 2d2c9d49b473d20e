/**
 * Whether an app still reads what the Hub writes it. A relay pauses the engine's answer while
 * the app's socket is full, and then nothing else would notice an app that is gone without a FIN
 * (a laptop asleep, a dropped NAT mapping, a stopped process): undici's body timeout does not run
 * while the exchange is paused, and the server keeps no idle timeout on a socket it is answering.
 * Such an app held the engine's slot, the queue depth and a pending routing-log row until its TCP
 * connection died, which may be never (audit, 2026-12-07: still held after 90 s, the next caller
 * for that one-slot engine refused at its deadline).
 *
 * The watch runs while bytes wait in the response's buffer, and closes the response when a whole
 * `stallMs` passes in which none of them left it. A slow reader takes some bytes in every period
 * and is never cut, however long its answer takes to drain.
 */
import type { ServerResponse } from 'node:http';
import { systemTimer, type Timer } from '../util/timer.js';

/** What the watch uses of the response. */
export type WatchedResponse = Pick<ServerResponse, 'write' | 'writableLength' | 'once' | 'destroy'>;

export class AppStallWatch {
  readonly #res: WatchedResponse;
  readonly #stallMs: number;
  readonly #onDrain: () => void;
  readonly #timer: Timer;
  /** Cancels the wait under way; null while none is. */
  #cancel: (() => void) | null = null;
  #waitingForDrain = false;
  /** Bytes handed to res.write; less what the response still buffers, the bytes that left it. */
  #written = 0;
  #leftAtArm = 0;
  #cutAfterMs: number | null = null;

  /** `onDrain` runs each time the app's socket has room again after a write found it full. */
  constructor(res: WatchedResponse, stallMs: number, onDrain: () => void, timer: Timer = systemTimer) {
    this.#res = res;
    this.#stallMs = stallMs;
    this.#onDrain = onDrain;
    this.#timer = timer;
  }

  /** Writes a chunk; false when the app's socket is full, and the watch then runs until it drains. */
  write(chunk: Buffer): boolean {
    this.#written += chunk.length;
    if (this.#res.write(chunk)) return true;
    if (!this.#waitingForDrain) {
      // One listener however many writes find the socket full: the chunks queued before the
      // relay took the body are all written in one go, each answered false.
      this.#waitingForDrain = true;
      this.#res.once('drain', this.#drained);
    }
    if (this.#cancel === null) this.#arm();
    return false;
  }

  /**
   * After res.end(): the response finishes only once the app has taken every byte, so bytes still
   * waiting are watched even when no write found the socket full (an app that stopped reading
   * with the last few KiB in the buffer held its request unsettled until its connection died).
   */
  ended(): void {
    if (this.#res.writableLength > 0 && this.#cancel === null) this.#arm();
  }

  /**
   * How long the app had taken nothing when the watch closed its response; null when the watch
   * closed nothing. The close reads as the app's hang-up, and this is how the row tells it from
   * an app that closed its own connection.
   */
  get cutAfterMs(): number | null {
    return this.#cutAfterMs;
  }

  /** Ends the watch: the response finished or closed. */
  stop(): void {
    this.#cancel?.();
    this.#cancel = null;
  }

  /** Framing bytes (a chunk's size line) count as waiting, so this is never above the truth. */
  #left(): number {
    return this.#written - this.#res.writableLength;
  }

  #arm(): void {
    this.#leftAtArm = this.#left();
    this.#cancel = this.#timer.after(this.#stallMs, this.#check);
  }

  readonly #check = (): void => {
    this.#cancel = null;
    if (this.#left() > this.#leftAtArm) return this.#arm();
    // The close this causes settles the request as the app's hang-up, one the row names as a
    // reader that stopped (cutAfterMs), since the app itself closed nothing.
    this.#cutAfterMs = this.#stallMs;
    this.#res.destroy();
  };

  readonly #drained = (): void => {
    this.#waitingForDrain = false;
    this.stop();
    this.#onDrain();
  };
}
