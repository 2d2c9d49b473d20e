/**
 * Reads an upstream body (an engine's or a peer's) whole, within a byte limit and a time limit.
 * Without both, a peer's /capabilities or an engine's listing grew past 2 GiB and V8 aborted
 * the Hub, and did again on the next poll after a restart (issue 9, defect 3). A body that
 * declares or reaches more than its limit is abandoned there (the connection is destroyed,
 * nothing more is read); one still arriving at its deadline likewise.
 *
 * The proxy walk's completion bodies are read elsewhere; this is for everything the Hub reads
 * for itself: probes, listings, /api/show and /api/ps, and every peer call.
 */
import type { Readable } from 'node:stream';

export type UpstreamReadFailure = 'too-large' | 'timed-out';

export class UpstreamReadError extends Error {
  readonly failure: UpstreamReadFailure;
  constructor(failure: UpstreamReadFailure, message: string) {
    super(message);
    this.name = 'UpstreamReadError';
    this.failure = failure;
  }
}

export interface ReadLimits {
  /** Largest body accepted, bytes. */
  readonly maxBytes: number;
  /** Longest the whole body may take to arrive, ms (from the start of the read). */
  readonly timeoutMs: number;
}

/**
 * The body as one Buffer; rejects with UpstreamReadError past either limit (or with the
 * transport's own error). `declaredLength` is the Content-Length header, refused up front.
 */
export async function readBounded(body: Readable, limits: ReadLimits, declaredLength?: string | string[]): Promise<Buffer> {
  // undici's body emits 'error' when destroyed; the loop below sees every error that matters,
  // and one emitted after it has stopped listening must not become an uncaught exception.
  body.on('error', ignore);
  const declared = typeof declaredLength === 'string' ? Number(declaredLength) : NaN;
  if (Number.isFinite(declared) && declared > limits.maxBytes) {
    body.destroy();
    throw tooLarge(limits.maxBytes);
  }
  // A deadline on an awaited read, cleared below: not a background task.
  const deadline = setTimeout(
    () => body.destroy(new UpstreamReadError('timed-out', `the answer took longer than ${limits.timeoutMs} ms to arrive`)),
    limits.timeoutMs,
  );
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      const bytes = chunk as Buffer;
      size += bytes.length;
      if (size > limits.maxBytes) {
        body.destroy();
        throw tooLarge(limits.maxBytes);
      }
      chunks.push(bytes);
    }
  } finally {
    clearTimeout(deadline);
  }
  return Buffer.concat(chunks, size);
}

/** The bytes that open a JSON container or separate its members: '{', '[', ':' and ','. */
const JSON_STRUCTURE_BYTES = [0x7b, 0x5b, 0x3a, 0x2c] as const;

/**
 * Whether a body holds more than `max` of JSON_STRUCTURE_BYTES (inside strings too, which only
 * errs toward refusing): a bound on how many objects, arrays and members JSON.parse would build,
 * checked before it runs. A byte limit alone does not bound the parse: one object of 1,000,000
 * keys fits in 12 MB and took 0.6-0.85 s to parse on an idle Hub (3.5 s under load), all on the
 * event loop. Native scans, stopping at the bound.
 */
export function holdsMoreStructureThan(bytes: Buffer, max: number): boolean {
  let seen = 0;
  for (const b of JSON_STRUCTURE_BYTES) {
    for (let i = bytes.indexOf(b); i !== -1; i = bytes.indexOf(b, i + 1)) if (++seen > max) return true;
  }
  return false;
}

/** Drops a body that will not be read (a non-200 answer), closing its connection without an uncaught error. */
export function discardBody(body: Readable): void {
  body.on('error', ignore);
  body.destroy();
}

function ignore(): void {}

/** Parses a bounded body as JSON; undefined when it is not JSON (the caller says what that means). */
export function parseJsonOrUndefined(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

function tooLarge(maxBytes: number): UpstreamReadError {
  return new UpstreamReadError('too-large', `the answer is larger than the ${maxBytes}-byte limit`);
}
