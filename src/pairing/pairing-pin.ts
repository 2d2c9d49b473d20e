/**
 * The pairing PIN: the one secret that lets an unauthenticated POST /pair/request carry an
 * identity. At most one is outstanding. Its worth rests on the per-PIN ceiling: five wrong
 * guesses, from anyone, destroy it, so whatever the number of sources the chance of a hit
 * stays at 5 in 10^6. Every way of failing looks the same from outside (false), because
 * telling "wrong" apart from "none outstanding" would let a caller learn when to start guessing.
 */
import { randomInt, timingSafeEqual } from 'node:crypto';
import { elapsedMs, type Clock } from '../util/clock.js';

export const PIN_DIGITS = 6;
export const PIN_TTL_MS = 10 * 60_000;
export const PIN_MAX_WRONG_GUESSES = 5;

const PIN_SHAPE = new RegExp(`^\\d{${PIN_DIGITS}}$`);

function cryptoDigits(): string {
  return randomInt(0, 10 ** PIN_DIGITS)
    .toString()
    .padStart(PIN_DIGITS, '0');
}

/** The PIN's state as status reports it; never its digits. */
export interface PairingPinStatus {
  readonly active: boolean;
  /** When the PIN lapses, by this Hub's clock; null when there is none. */
  readonly expiresAt: string | null;
  /**
   * What is left of it, by this Hub's clock, when the status was read; null when there is none.
   * A page counts down from this rather than from expiresAt, which another machine's clock reads
   * wrong by however far the two disagree.
   */
  readonly expiresInMs: number | null;
}

interface Outstanding {
  readonly digits: Buffer;
  /** Kept rather than the expiry alone: the ten minutes are judged by elapsedMs from here (see its doc). */
  readonly mintedAtMs: number;
  wrongGuesses: number;
}

export class PairingPin {
  readonly #clock: Clock;
  readonly #randomDigits: () => string;
  #current: Outstanding | null = null;

  constructor(opts: { clock: Clock; randomDigits?: () => string }) {
    this.#clock = opts.clock;
    this.#randomDigits = opts.randomDigits ?? cryptoDigits;
  }

  /** Mints a PIN, replacing any outstanding one. The only place the digits are ever handed out. */
  mint(): { pin: string; expiresAt: string } {
    const pin = this.#randomDigits();
    if (!PIN_SHAPE.test(pin)) throw new Error(`PIN source returned something other than ${PIN_DIGITS} digits`);
    const mintedAtMs = this.#clock.nowMs();
    this.#current = { digits: Buffer.from(pin, 'latin1'), mintedAtMs, wrongGuesses: 0 };
    return { pin, expiresAt: new Date(mintedAtMs + PIN_TTL_MS).toISOString() };
  }

  status(): PairingPinStatus {
    const current = this.#live();
    if (current === null) return { active: false, expiresAt: null, expiresInMs: null };
    const expiresInMs = PIN_TTL_MS - elapsedMs(this.#clock.nowMs(), current.mintedAtMs);
    return { active: true, expiresAt: new Date(current.mintedAtMs + PIN_TTL_MS).toISOString(), expiresInMs };
  }

  /** Withdraws the outstanding PIN; true when there was one to withdraw. */
  cancel(): boolean {
    const had = this.#live() !== null;
    this.#current = null;
    return had;
  }

  /**
   * True exactly once, for the right digits before expiry. Anything else is a wrong guess
   * against an outstanding PIN, including input that is not six digits at all: a caller who
   * sends garbage is still spending one of the five tries.
   */
  verify(candidate: unknown): boolean {
    return this.check(candidate) && this.consume();
  }

  /**
   * verify without spending the PIN when it is right: the caller decides, synchronously after,
   * whether the request it came with can be taken, and consumes it only then. A wrong guess
   * counts exactly as in verify.
   */
  check(candidate: unknown): boolean {
    const current = this.#live();
    if (current === null) return false;
    const wellFormed = typeof candidate === 'string' && PIN_SHAPE.test(candidate);
    // Always compare, on equal-length buffers, so the time taken does not depend on the input;
    // NUL bytes never equal an ASCII digit, so the stand-in cannot match.
    const given = wellFormed ? Buffer.from(candidate, 'latin1') : Buffer.alloc(PIN_DIGITS);
    const match = timingSafeEqual(given, current.digits) && wellFormed;
    if (match) return true;
    current.wrongGuesses += 1;
    if (current.wrongGuesses >= PIN_MAX_WRONG_GUESSES) this.#current = null;
    return false;
  }

  /** Spends the outstanding PIN (after a check that passed); true when there was one. */
  consume(): boolean {
    const had = this.#live() !== null;
    this.#current = null;
    return had;
  }

  /**
   * The outstanding PIN, dropping it first if its ten minutes are up. One minted before the wall
   * clock was set back lapses then (elapsedMs); judged by its expiry it lived on for as long as
   * the step (audit, 2026-12-07: half an hour after a two-hour step it was still open, with 100
   * minutes left).
   */
  #live(): Outstanding | null {
    if (this.#current !== null && elapsedMs(this.#clock.nowMs(), this.#current.mintedAtMs) >= PIN_TTL_MS) this.#current = null;
    return this.#current;
  }
}
