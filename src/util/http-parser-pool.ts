/**
 * Node's pool of idle HTTP parsers, emptied when the Hub goes quiet after a burst.
 *
 * node:http keeps the parser of each closed connection for the next one, up to 1,000
 * (`parsers` in lib/_http_common.js). Each holds a native llhttp parser with room for 32
 * header fields, about 2 KB of C++ memory outside the JS heap. A Hub that served 1,000
 * concurrent streams keeps 1,000 of them until the next burst: the soak's Hub `a` held 1,001
 * after its load (heap snapshot, bench/README.md 2026-12-04). A bare node:http server on
 * jemalloc through which 1,000 concurrent streams passed three times kept 1-5 MiB less
 * anonymous memory 20 s on when its pool was emptied, and in five soaks the Hub came back to
 * +7.1 to +10.5% of its idle RSS (median +8.2%) instead of +11.2 to +14.2% (bench/README.md, same day).
 *
 * The pool is not part of Node's public API, so it is reached defensively: on a runtime where
 * it is missing or shaped otherwise, nothing is closed and the caller is told so. Closing a
 * pooled parser is what Node itself does to one that no longer fits in the pool.
 */
import { createRequire } from 'node:module';

/** The part of Node's FreeList this module uses: the idle parsers, each with its close(). */
export interface ParserPool {
  readonly list: { close?: unknown }[];
}

/** Node's own pool; null when this runtime does not offer it in the shape above. */
export function nodeParserPool(): ParserPool | null {
  try {
    const pool: unknown = (createRequire(import.meta.url)('_http_common') as { parsers?: unknown }).parsers;
    if (typeof pool === 'object' && pool !== null && Array.isArray((pool as { list?: unknown }).list)) return pool as ParserPool;
  } catch {
    // No such module on this runtime: the caller reports null.
  }
  return null;
}

/** Closes every parser waiting in `pool`; how many it closed, or null when there is no pool. */
export function closePooledParsers(pool: ParserPool | null): number | null {
  if (pool === null) return null;
  let closed = 0;
  for (let parser = pool.list.pop(); parser !== undefined; parser = pool.list.pop()) {
    if (typeof parser.close !== 'function') continue;
    (parser.close as () => void).call(parser);
    closed += 1;
  }
  return closed;
}
