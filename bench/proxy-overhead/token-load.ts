/**
 * The token-stream load: `connections` callers, each asking for one token stream after another
 * for `durationS` seconds (fake-upstream.ts paces it: one SSE event per write, `rate` a second).
 * It counts the events relayed and times each stream's first event, from the moment the request
 * was sent to the moment the first `data:` bytes arrive. autocannon cannot see inside a body, so
 * this is undici in the runner's own process.
 */
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { BENCH_MODEL } from './fake-upstream.js';
import { percentile } from './stats.js';

/** The default pace: events a second per stream, what a fast GPU engine writes for one caller. */
export const DEFAULT_TOKEN_RATE = 150;
/** The default length in events (with the default rate, two thirds of a second a stream). */
export const DEFAULT_TOKEN_EVENTS = 100;

/** The request that asks fake-upstream.ts for a token stream of `events` events at `rate` a second. */
export function tokenBody(token: { rate: number; events: number }): string {
  return JSON.stringify({
    model: BENCH_MODEL,
    messages: [{ role: 'user', content: 'hi' }],
    stream: true,
    bench_token_rate: token.rate,
    bench_token_events: token.events,
  });
}

export interface TokenLoadSpec {
  readonly url: string;
  readonly body: string;
  readonly connections: number;
  readonly durationS: number;
  /** Events (and the final [DONE]) each stream carries; a stream with fewer is a failure. */
  readonly eventsPerStream: number;
}

export interface TokenLoadResult {
  /** Streams that ended with every event. */
  readonly streams: number;
  /** Events relayed in those streams ([DONE] not counted). */
  readonly events: number;
  /** Streams that answered other than 200, broke off, or came short. */
  readonly failed: number;
  readonly elapsedS: number;
  /** Time to the first event: median and 99th percentile over the streams, ms. */
  readonly firstEventP50Ms: number;
  readonly firstEventP99Ms: number;
}

const DATA_PREFIX = Buffer.from('data: ');
const DONE = 'data: [DONE]';

/** Events in an SSE body: lines that start with `data: `, less the closing [DONE]. */
function countEvents(text: string): number {
  let n = 0;
  for (const line of text.split('\n')) if (line.startsWith('data: ') && line !== DONE) n += 1;
  return n;
}

/**
 * One token stream on `pool`: its events, and the ms from sending the request to the first
 * `data:` bytes; null when it answered other than 200, broke off or came short of `eventsPerStream`.
 */
export async function oneTokenStream(pool: Pool, path: string, body: string, eventsPerStream: number): Promise<{ events: number; firstMs: number } | null> {
  const sent = performance.now();
  let first: number | null = null;
  const parts: Buffer[] = [];
  try {
    const res = await pool.request({ path, method: 'POST', headers: { 'content-type': 'application/json' }, body });
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      if (first === null && chunk.includes(DATA_PREFIX)) first = performance.now() - sent;
      parts.push(chunk);
    }
    const events = countEvents(Buffer.concat(parts).toString('utf8'));
    return res.statusCode !== 200 || events !== eventsPerStream || first === null ? null : { events, firstMs: first };
  } catch {
    return null;
  }
}

export async function runTokenStreams(spec: TokenLoadSpec): Promise<TokenLoadResult> {
  const url = new URL(spec.url);
  const pool = new Pool(url.origin, { connections: spec.connections });
  const firsts: number[] = [];
  let streams = 0;
  let events = 0;
  let failed = 0;
  const started = performance.now();
  const endAt = started + spec.durationS * 1000;
  await Promise.all(
    Array.from({ length: spec.connections }, async () => {
      while (performance.now() < endAt) {
        const got = await oneTokenStream(pool, url.pathname, spec.body, spec.eventsPerStream);
        if (got === null) {
          failed += 1;
          continue;
        }
        streams += 1;
        events += got.events;
        firsts.push(got.firstMs);
      }
    }),
  );
  const elapsedS = (performance.now() - started) / 1000;
  await pool.close();
  firsts.sort((a, b) => a - b);
  return { streams, events, failed, elapsedS, firstEventP50Ms: percentile(firsts, 50), firstEventP99Ms: percentile(firsts, 99) };
}
